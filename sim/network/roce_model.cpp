#include "sim/network/roce_model.h"

#include <algorithm>
#include <cctype>

namespace collsim {

bool SwitchSettings::matches(const std::string& name) const {
  if (name.rfind(match, 0) != 0) return false;
  return std::all_of(name.begin() + std::ptrdiff_t(match.size()), name.end(),
                     [](unsigned char c) { return std::isdigit(c); });
}

bool applyDcqcnPreset(const std::string& name, RoceModel& m) {
  DcqcnModel& d = m.dcqcn;
  EcnModel& e = m.ecn;
  if (name == "paper") { // Zhu et al., SIGCOMM 2015, 40 G fluid model
    e.kmin = 5'000;
    e.kmax = 200'000;
    e.pmax = 0.01;
    d.g = 1.0 / 256;
    d.cnpInterval = 50 * kPsPerUs;
    d.alphaPeriod = 55 * kPsPerUs;
    d.increasePeriod = 55 * kPsPerUs;
    d.byteCounter = 10'000'000;
    d.fastRecoverySteps = 5;
    d.additiveIncrease = 40'000'000 / 8;  // 40 Mb/s
    d.hyperIncrease = 200'000'000 / 8;    // 200 Mb/s (the authors' code)
  } else if (name == "production") { // 100 G: a cloud's 100/400 KB per 25 G, scaled; NIC defaults
    e.kmin = 400'000;
    e.kmax = 1'600'000;
    e.pmax = 0.2;
    d.g = 1.0 / 256;
    d.cnpInterval = 50 * kPsPerUs;
    d.alphaPeriod = 55 * kPsPerUs;
    d.increasePeriod = 300 * kPsPerUs;
    d.byteCounter = 10'000'000;
    d.fastRecoverySteps = 5;
    d.additiveIncrease = 5'000'000 / 8;   // 5 Mb/s
    d.hyperIncrease = 50'000'000 / 8;     // 50 Mb/s
  } else {
    return false;
  }
  d.minRate = 100'000'000 / 8; // 100 Mb/s floor
  m.dcqcnPreset = name;
  // The line rate the preset's thresholds and steps were made for.
  m.dcqcnPresetRate = name == "paper" ? 40'000'000'000ULL / 8 : 100'000'000'000ULL / 8;
  return true;
}

RoceModel defaultRoceModel() {
  RoceModel m;
  applyDcqcnPreset("production", m);
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
