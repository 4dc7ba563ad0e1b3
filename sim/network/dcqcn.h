// DCQCN's reaction point (Zhu et al., SIGCOMM 2015, as ConnectX NICs run it):
// the sending rate of one queue pair. Each QP has its own state; nothing is
// shared between QPs.
//
// A cut: target = current (always, or with ConnectX's clamp rule only once
// the rate has risen since the last cut); current *= 1 - alpha/2, never below
// the minimum rate. The paper cuts at each CNP; a NIC with a decrease period
// (rate_reduce_monitor_period) cuts once at the end of a period that saw CNPs.
//
// Alpha is updated at the end of every alpha period (fixed ticks of absolute
// time): (1 - g) alpha + g if a CNP came in it, (1 - g) alpha if not. It is
// kept lazily (advanced when read), so a 1 us period costs no events. The
// first CNP sets alpha to its initial value.
//
// Increases come from a timer (restarted by each cut) and a byte counter: F
// fast-recovery rounds (current = (target + current) / 2), then additive
// increase (target += R_AI) once either counter is past F, hyper increase
// (target += i R_HAI) once both are (IEEE 802.1Qau's rule, whose rpg_*
// parameters the NICs take), each followed by current = (target + current) / 2.
// The network schedules the timers while the QP is below line rate.
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
  double target() const { return target_; }
  bool limited() const { return current_ < line_; }
  // Alpha at `now` (1 before the first CNP).
  double alpha(Time now);

  enum class CnpEffect { Cut, CutAtPeriodEnd, AlreadyPending };
  // A CNP arrived. With a decrease period the caller schedules
  // onDecreaseTimer at cutDueAt() when told CutAtPeriodEnd.
  CnpEffect onCnp(Time now);
  Time cutDueAt() const { return cutDueAt_; }
  void onDecreaseTimer(Time now);
  // The increase timer fired.
  void onIncreaseTimer();
  // `bytes` more were sent: a completed byte-counter round raises the rate.
  void onSent(Bytes bytes);

private:
  void cut(Time now);
  void increase();
  void advanceAlpha(Time now);

  const DcqcnModel* model_ = nullptr;
  double line_ = 0, current_ = 0, target_ = 0;
  double alpha_ = 1.0;
  bool seenCnp_ = false;
  std::int64_t alphaTick_ = 0; // alpha_ holds alpha at the start of this alpha period
  std::int64_t cnpTick_ = -1;  // the latest alpha period with a CNP
  Time cutDueAt_ = -1;         // a cut waits for this time (decrease period)
  int timerRounds_ = 0, byteRounds_ = 0;
  Bytes bytesSinceRound_ = 0;
};

} // namespace collsim
