#include "sim/workload/operation_cost.h"

#include <algorithm>
#include <cmath>

namespace collsim {

double gemmSeconds(const DeviceModel& d, const GemmShape& g, int elementBytes) {
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.batch <= 0) return 0;
  const double rate = d.flops * d.gemmEfficiency;
  double compute = gemmFlops(g) / rate;
  if (d.computeUnits > 0) {
    double tiles = std::ceil(g.m / d.tileRows) * std::ceil(g.n / d.tileColumns) * g.batch;
    double waves = std::ceil(tiles / d.computeUnits);
    compute = waves * d.computeUnits * 2.0 * d.tileRows * d.tileColumns * g.k / rate;
  }
  double bytes = double(elementBytes) * g.batch * (g.m * g.k + g.k * g.n + g.m * g.n);
  return std::max(compute, memorySeconds(d, bytes));
}

double memorySeconds(const DeviceModel& d, double bytes) {
  return bytes / (double(d.memoryBandwidth) * d.memoryEfficiency);
}

double attentionSeconds(const DeviceModel& d, double flops, bool backward) {
  return flops / (d.flops * (backward ? d.attentionBackward : d.attentionForward));
}

DeviceModel withAttentionKernel(const DeviceModel& device, const std::string& kernel) {
  if (kernel.empty()) return device;
  std::string known;
  for (const AttentionKernel& k : device.attentionKernels) {
    if (k.name != kernel) {
      known += (known.empty() ? "" : ", ") + k.name;
      continue;
    }
    DeviceModel d = device;
    d.attentionForward = k.forward, d.attentionBackward = k.backward;
    return d;
  }
  const std::string name = device.name.empty() ? "the device" : device.name;
  throw InputError(name + " has no figures for attention: " + kernel +
                   (known.empty() ? std::string(" (it has none by name: use attention: flash, with the device's "
                                                "attention_efficiency)")
                                  : " (it has: " + known + ")"));
}

} // namespace collsim
