#include "sim/network/dcqcn.h"

#include <algorithm>
#include <cmath>

namespace collsim {

void DcqcnRate::advanceAlpha(Time now) {
  const std::int64_t tick = now / model_->alphaPeriod;
  const double keep = 1 - model_->g;
  if (cnpTick_ >= alphaTick_ && cnpTick_ < tick) { // a finished period with a CNP
    alpha_ *= std::pow(keep, double(cnpTick_ - alphaTick_));
    alpha_ = keep * alpha_ + model_->g;
    alphaTick_ = cnpTick_ + 1;
  }
  if (tick > alphaTick_) {
    alpha_ *= std::pow(keep, double(tick - alphaTick_));
    alphaTick_ = tick;
  }
}

double DcqcnRate::alpha(Time now) {
  if (seenCnp_) advanceAlpha(now);
  return alpha_;
}

DcqcnRate::CnpEffect DcqcnRate::onCnp(Time now) {
  if (!seenCnp_) {
    seenCnp_ = true;
    alpha_ = model_->initialAlpha;
    alphaTick_ = now / model_->alphaPeriod;
  } else {
    advanceAlpha(now);
    cnpTick_ = now / model_->alphaPeriod;
  }
  if (model_->decreasePeriod <= 0) {
    cut(now);
    return CnpEffect::Cut;
  }
  if (cutDueAt_ >= now) return CnpEffect::AlreadyPending;
  cutDueAt_ = (now / model_->decreasePeriod + 1) * model_->decreasePeriod;
  return CnpEffect::CutAtPeriodEnd;
}

void DcqcnRate::onDecreaseTimer(Time now) {
  cutDueAt_ = -1;
  cut(now);
}

void DcqcnRate::cut(Time now) {
  advanceAlpha(now);
  // ConnectX's clamp_tgt_rate off: the target stays where it was through
  // back-to-back cuts, and follows the rate down only once it has risen.
  if (model_->clampTarget || byteRounds_ > 0 || (model_->clampAfterTimerIncrease && timerRounds_ > 0))
    target_ = current_;
  current_ = std::max(double(model_->minRate), current_ * (1 - alpha_ / 2));
  timerRounds_ = byteRounds_ = 0;
  bytesSinceRound_ = 0;
}

void DcqcnRate::onIncreaseTimer() {
  ++timerRounds_;
  increase();
}

void DcqcnRate::onSent(Bytes bytes) {
  if (!limited() || model_->byteCounter == 0) return;
  bytesSinceRound_ += bytes;
  while (bytesSinceRound_ >= model_->byteCounter) {
    bytesSinceRound_ -= model_->byteCounter;
    ++byteRounds_;
    increase();
  }
}

void DcqcnRate::increase() {
  const int f = model_->fastRecoverySteps;
  if (timerRounds_ > f && byteRounds_ > f) {
    target_ += double(std::min(timerRounds_, byteRounds_) - f) * double(model_->hyperIncrease);
  } else if (timerRounds_ > f || byteRounds_ > f) {
    target_ += double(model_->additiveIncrease);
  }
  target_ = std::min(target_, line_);
  current_ = std::min(line_, (target_ + current_) / 2);
  // Within a byte of line rate is line rate: the halving never quite gets there.
  if (line_ - current_ < 1.0) current_ = line_;
}

} // namespace collsim
