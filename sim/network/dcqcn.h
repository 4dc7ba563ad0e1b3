// DCQCN's reaction point (Zhu et al., SIGCOMM 2015): the sending rate of one
// queue pair. Each QP has its own state; nothing is shared between QPs.
//
// On a congestion notification (CNP): target = current; current *= 1 - alpha/2;
// alpha = (1 - g) alpha + g. Without a CNP for an alpha period, alpha decays
// by (1 - g). Increases come from a timer and a byte counter: F fast-recovery
// rounds (current = (target + current) / 2), then additive increase (target +=
// R_AI), then hyper increase (target += i R_HAI) once both counters are past F,
// each followed by current = (target + current) / 2. The network schedules
// the timers while the QP is below line rate.
#pragma once

#include <cstdint>

#include "sim/network/roce_model.h"

namespace collsim {

class DcqcnRate {
public:
  DcqcnRate() = default;
  DcqcnRate(const DcqcnModel* model, Bandwidth lineRate) : model_(model), line_(double(lineRate)) {
    current_ = target_ = line_;
  }

  double rate() const { return current_; } // bytes per second
  bool limited() const { return current_ < line_; }
  double alpha() const { return alpha_; }

  void onCnp();
  // The alpha timer fired: decay alpha unless a CNP came in the period.
  void onAlphaTimer();
  // The increase timer fired.
  void onIncreaseTimer();
  // `bytes` more were sent: a completed byte-counter round raises the rate.
  void onSent(Bytes bytes);

private:
  void increase();

  const DcqcnModel* model_ = nullptr;
  double line_ = 0, current_ = 0, target_ = 0;
  double alpha_ = 1.0;
  bool cnpThisPeriod_ = false;
  int timerRounds_ = 0, byteRounds_ = 0;
  Bytes bytesSinceRound_ = 0;
};

} // namespace collsim
