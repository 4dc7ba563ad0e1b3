#include "sim/validation/profile.h"

#include <algorithm>
#include <map>
#include <set>

#include "sim/config/config_node.h"
#include "sim/config/input_file.h"
#include "sim/core/printable.h"
#include "sim/validation/profile_readers.h"

namespace collsim {

Profile keepDevice(std::string file, std::string format, std::vector<std::string> names,
                   const std::vector<FoundKernel>& found, int wanted) {
  std::set<int> devices;
  for (const FoundKernel& k : found) devices.insert(k.device);
  if (devices.empty())
    throw ConfigError(printable(file) + ": no device kernels (a PyTorch profiler trace with CUDA activities, an "
                                        "msprof or torch_npu trace, or an op summary CSV)");
  Profile p;
  p.file = std::move(file), p.format = std::move(format), p.names = std::move(names);
  p.devices.assign(devices.begin(), devices.end());
  p.device = wanted < 0 ? p.devices.front() : wanted;
  if (!devices.count(p.device)) {
    std::string list;
    for (int d : p.devices) list += (list.empty() ? "" : ", ") + std::to_string(d);
    throw ConfigError(printable(p.file) + ": no kernels of device " + std::to_string(wanted) + " (it has: " + list + ")");
  }
  for (const FoundKernel& k : found)
    if (k.device == p.device) p.kernels.push_back({k.start, k.start + k.duration, k.kind, k.name});
  std::stable_sort(p.kernels.begin(), p.kernels.end(),
                   [](const ProfileKernel& a, const ProfileKernel& b) { return a.start < b.start; });
  return p;
}

Profile parseProfile(const std::string& text, const std::string& file, int device) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && (text[first] == '{' || text[first] == '['))
    return parseTraceJson(text, file, device);
  return parseKernelCsv(text, file, device);
}

Profile readProfile(const std::string& path, int device) {
  return parseProfile(readInputFile(path, "profile", kMaxProfileBytes), path, device);
}

namespace {

constexpr double kSecondsPerUs = 1e-6;

bool computes(KernelClass k) { return k != KernelClass::Communication; }

void addClass(ProfileClasses& c, KernelClass kind, double seconds) {
  switch (kind) {
  case KernelClass::Gemm: c.gemm += seconds; break;
  case KernelClass::Attention: c.attention += seconds; break;
  case KernelClass::Memory: c.memory += seconds; break;
  case KernelClass::Communication: c.communication += seconds; break;
  }
}

// The length of the union of [start, end) intervals given in order of start.
class UnionLength {
public:
  void add(double start, double end) {
    start = std::max(start, to_);
    if (end > start) length_ += end - start, to_ = end;
  }
  double length() const { return length_; }

private:
  double length_ = 0, to_ = -1e300;
};

} // namespace

ProfileBreakdown breakdownOf(const Profile& p, std::size_t topPerClass) {
  std::vector<ProfileRange> windows = p.steps;
  if (windows.empty()) {
    double end = p.kernels.front().end;
    for (const ProfileKernel& k : p.kernels) end = std::max(end, k.end);
    windows.push_back({p.kernels.front().start, end, "the whole profile"});
  }
  ProfileBreakdown b;
  b.steps = int(windows.size());
  std::map<int, KernelTotal> byName;
  for (const ProfileRange& w : windows) {
    auto from = std::lower_bound(p.kernels.begin(), p.kernels.end(), w.start,
                                 [](const ProfileKernel& k, double t) { return k.start < t; });
    UnionLength all, compute;
    ProfileClasses step;
    for (auto it = from; it != p.kernels.end() && it->start < w.end; ++it) {
      const double end = std::min(it->end, w.end);
      addClass(step, it->kind, (end - it->start) * kSecondsPerUs);
      all.add(it->start, end);
      if (computes(it->kind)) compute.add(it->start, end);
      KernelTotal& t = byName.try_emplace(it->name, KernelTotal{p.names[std::size_t(it->name)], it->kind, 0, 0}).first->second;
      t.count += 1, t.seconds += (end - it->start) * kSecondsPerUs;
    }
    step.step = (w.end - w.start) * kSecondsPerUs;
    step.exposed = (all.length() - compute.length()) * kSecondsPerUs;
    step.idle = step.step - all.length() * kSecondsPerUs;
    ProfileClasses& m = b.perStep;
    m.gemm += step.gemm, m.attention += step.attention, m.memory += step.memory;
    m.communication += step.communication, m.exposed += step.exposed, m.idle += step.idle, m.step += step.step;
  }
  const double n = double(b.steps);
  ProfileClasses& m = b.perStep;
  for (double* x : {&m.gemm, &m.attention, &m.memory, &m.communication, &m.exposed, &m.idle, &m.step}) *x /= n;
  // The longest kernels of each class, per step.
  std::vector<KernelTotal> totals;
  for (auto& [id, t] : byName) totals.push_back({t.name, t.kind, int(double(t.count) / n + 0.5), t.seconds / n});
  std::sort(totals.begin(), totals.end(), [](const KernelTotal& a, const KernelTotal& c) { return a.seconds > c.seconds; });
  std::map<KernelClass, std::size_t> shown;
  for (const KernelTotal& t : totals)
    if (shown[t.kind]++ < topPerClass) b.topKernels.push_back(t);
  // Layers: each kernel in the innermost annotation its start falls in.
  std::vector<ProfileRange> ranges = p.layers;
  std::sort(ranges.begin(), ranges.end(), [](const ProfileRange& a, const ProfileRange& c) {
    return a.start != c.start ? a.start < c.start : a.end > c.end;
  });
  std::map<std::string, LayerTotal> layers;
  for (const ProfileRange& r : ranges) {
    LayerTotal& l = layers.try_emplace(r.name, LayerTotal{r.name, 0, {}}).first->second;
    l.count += 1, l.classes.step += (r.end - r.start) * kSecondsPerUs;
  }
  std::vector<const ProfileRange*> open;
  std::size_t next = 0;
  for (const ProfileKernel& k : p.kernels) {
    while (next < ranges.size() && ranges[next].start <= k.start) {
      while (!open.empty() && open.back()->end <= ranges[next].start) open.pop_back();
      open.push_back(&ranges[next++]);
    }
    while (!open.empty() && open.back()->end <= k.start) open.pop_back();
    if (!open.empty()) addClass(layers[open.back()->name].classes, k.kind, (k.end - k.start) * kSecondsPerUs);
  }
  for (auto& [name, l] : layers) {
    ProfileClasses& c = l.classes;
    for (double* x : {&c.gemm, &c.attention, &c.memory, &c.communication, &c.step}) *x /= n;
    l.count = int(double(l.count) / n + 0.5);
    b.layers.push_back(l);
  }
  std::sort(b.layers.begin(), b.layers.end(),
            [](const LayerTotal& a, const LayerTotal& c) { return a.classes.step > c.classes.step; });
  return b;
}

ProfileClasses predictedClasses(const StepResult& step) {
  const ClassSeconds& c = step.computeClasses;
  const double kernels = c.total(), ran = toSeconds(step.compute);
  const double k = kernels > 0 ? ran / kernels : 0;
  ProfileClasses p;
  p.gemm = c.gemm * k, p.attention = c.attention * k, p.memory = (c.memory + c.other) * k;
  const double bubble = step.layout ? toSeconds(step.breakdown.bubble) : 0;
  p.idle = c.overhead * k + bubble;
  p.step = toSeconds(step.iteration);
  p.exposed = std::max(0.0, p.step - ran - bubble);
  return p;
}

} // namespace collsim
