#include "sim/network/roce_model.h"

#include <algorithm>
#include <cctype>

namespace collsim {

bool SwitchSettings::matches(const std::string& name) const {
  if (name.rfind(match, 0) != 0) return false;
  return std::all_of(name.begin() + std::ptrdiff_t(match.size()), name.end(),
                     [](unsigned char c) { return std::isdigit(c); });
}

// Two presets, each whole: switch marking (ECN) and the NICs' DCQCN.
//
// paper: Zhu et al., SIGCOMM 2015, the 40 G fluid model's parameters.
//
// connectx: the NICs as shipped. ConnectX-4 and later firmware defaults, from
// NVIDIA's "DCQCN CC Parameters" (networking-docs.nvidia.com/doca/archive/
// 3-4-0/dcqcn-cc-parameters) and an `mlxconfig query` of a ConnectX-5 Ex,
// firmware 16.27.2008 (xdp-newbies list, 2020-06-22): dce_tcp_g 1019
// (g = 5/1024) every dce_tcp_rtt 1 us, initial_alpha_value 1023,
// rate_reduce_monitor_period 4 us, clamp_tgt_rate 0,
// clamp_tgt_rate_after_time_inc 1, rpg_time_reset 300 us, rpg_byte_reset
// 32767 (units of 64 bytes, as Google's isekai simulator reads it:
// 2,097,088 bytes), rpg_threshold 1, rpg_ai_rate 5 Mb/s, rpg_hai_rate
// 50 Mb/s, rpg_min_rate 1 Mb/s, min_time_between_cnps 2 us. rpg_gd 11 is
// the cut alpha/2; rpg_min_dec_fac 50 (at most half per cut) never binds
// with alpha <= 1; rate_to_set_on_first_cnp 0 leaves the first cut to alpha.
// The switches mark as a large cloud's rule of 100 KB / 400 KB per 25 G
// does, scaled to 100 G (../shared/reference/roce-facts.md).
bool applyDcqcnPreset(const std::string& name, RoceModel& m) {
  DcqcnModel& d = m.dcqcn;
  EcnModel& e = m.ecn;
  if (name == "paper") {
    e.kmin = 5'000;
    e.kmax = 200'000;
    e.pmax = 0.01;
    d.g = 1.0 / 256;
    d.cnpInterval = 50 * kPsPerUs;
    d.alphaPeriod = 55 * kPsPerUs;
    d.increasePeriod = 55 * kPsPerUs;
    d.decreasePeriod = 0;
    d.clampTarget = true;
    d.initialAlpha = 1.0;
    d.byteCounter = 10'000'000;
    d.fastRecoverySteps = 5;
    d.additiveIncrease = 40'000'000 / 8;  // 40 Mb/s
    d.hyperIncrease = 200'000'000 / 8;    // 200 Mb/s (the authors' code)
    d.minRate = 100'000'000 / 8;          // 100 Mb/s floor
  } else if (name == "connectx") {
    e.kmin = 400'000;
    e.kmax = 1'600'000;
    e.pmax = 0.2;
    d.g = 5.0 / 1024;
    d.cnpInterval = 2 * kPsPerUs;
    d.alphaPeriod = 1 * kPsPerUs;
    d.increasePeriod = 300 * kPsPerUs;
    d.decreasePeriod = 4 * kPsPerUs;
    d.clampTarget = false;
    d.clampAfterTimerIncrease = true;
    d.initialAlpha = 1023.0 / 1024;
    d.byteCounter = 32767 * 64;
    d.fastRecoverySteps = 1;
    d.additiveIncrease = 5'000'000 / 8;   // 5 Mb/s
    d.hyperIncrease = 50'000'000 / 8;     // 50 Mb/s
    d.minRate = 1'000'000 / 8;            // 1 Mb/s
  } else {
    return false;
  }
  m.dcqcnPreset = name;
  // The line rate the preset's thresholds and steps were made for.
  m.dcqcnPresetRate = name == "paper" ? 40'000'000'000ULL / 8 : 100'000'000'000ULL / 8;
  return true;
}

RoceModel defaultRoceModel() {
  RoceModel m;
  applyDcqcnPreset("connectx", m);
  m.switchBuffer = Bytes(4) << 20;      // a few MB per port of a shallow-buffer 100 G switch
  m.pfc = {false, 512'000, 384'000};
  // Far below HCCL's default (HCCL_RDMA_TIMEOUT 20: 4.096 us x 2^20 = 4.3 s),
  // which would stall a simulated tail loss for seconds; gaps followed by
  // more packets are NACKed at once anyway.
  m.retransmitTimeout = 1000 * kPsPerUs;
  // HCCS: "under 0.1 us" of jitter, as the seed article states.
  m.hccsJitter = {JitterModel::Kind::Uniform, 0, 20 * kPsPerNs, 0, 0, 0, 0, 2};
  return m;
}

} // namespace collsim
