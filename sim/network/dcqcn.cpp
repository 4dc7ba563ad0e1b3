#include "sim/network/dcqcn.h"

#include <algorithm>

namespace collsim {

void DcqcnRate::onCnp() {
  target_ = current_;
  current_ = std::max(double(model_->minRate), current_ * (1 - alpha_ / 2));
  alpha_ = (1 - model_->g) * alpha_ + model_->g;
  cnpThisPeriod_ = true;
  timerRounds_ = byteRounds_ = 0;
  bytesSinceRound_ = 0;
}

void DcqcnRate::onAlphaTimer() {
  if (!cnpThisPeriod_) alpha_ *= 1 - model_->g;
  cnpThisPeriod_ = false;
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
