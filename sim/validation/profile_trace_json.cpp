// Chrome trace-event JSON (PyTorch's profiler, Ascend's msprof and
// torch_npu), read as a stream of tokens: only the fields of the events
// that matter are kept, so that a trace of hundreds of MB costs its
// device's kernels, not a tree of every CPU event (profile.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "sim/config/config_node.h"
#include "sim/core/printable.h"
#include "sim/validation/profile_readers.h"

namespace collsim {
namespace {

// One trace event's fields, as far as the reader needs them.
struct Event {
  std::string ph, cat, name, pid, argName, taskType;
  double ts = NAN, dur = NAN;
  std::string tsText, durText; // as written, for messages
  long long argDevice = -1;
  std::size_t index = 0; // its place in traceEvents, for messages
  void clear() { *this = Event{}; }
};

bool isDeviceCategory(const std::string& cat) { return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset"; }
bool isStepName(const std::string& name) { return name.rfind("ProfilerStep#", 0) == 0; }

// The token handler: where in the document it is, and the event at hand.
class TraceHandler : public nlohmann::json_sax<nlohmann::json> {
public:
  // What the document holds, once read.
  struct Kept {
    Event event;
    bool device = false; // a device kernel by category
  };
  std::vector<Kept> events;
  std::map<std::string, std::string> processNames; // pid -> process_name
  std::size_t errorAt = 0;
  std::string error;
  std::string refused; // an event whose times are none: "traceEvents[12] ('gemm'): ..."
  bool tooMany = false;

  bool null() override { return scalar(""); }
  bool boolean(bool) override { return scalar(""); }
  bool number_integer(number_integer_t v) override { return number(double(v), std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(double(v), std::to_string(v)); }
  bool number_float(number_float_t v, const string_t& s) override { return number(v, s); }
  bool string(string_t& v) override { return scalar(v); }
  bool binary(binary_t&) override { return scalar(""); }

  bool start_object(std::size_t) override {
    open(false);
    if (depth() == eventDepth_ + 1 && inEvents()) event_.clear(), event_.index = eventCount_++, inEvent_ = true;
    return true;
  }
  bool end_object() override {
    if (inEvent_ && depth() == eventDepth_ + 1) {
      inEvent_ = false;
      keep();
    }
    close();
    return !tooMany && refused.empty();
  }
  bool start_array(std::size_t) override {
    open(true);
    // The events: a bare top-level array, or the top-level object's "traceEvents".
    if (eventDepth_ < 0 && ((depth() == 1) || (depth() == 2 && stack_[0].key == "traceEvents" && !stack_[0].array)))
      eventDepth_ = depth();
    return true;
  }
  bool end_array() override {
    close();
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    errorAt = position, error = e.what();
    return false;
  }

private:
  struct Level {
    bool array = false;
    std::string key;
  };
  int depth() const { return int(stack_.size()); }
  void open(bool array) { stack_.push_back({array, ""}); }
  void close() {
    if (!stack_.empty()) stack_.pop_back();
    if (eventDepth_ > depth()) eventDepth_ = -2; // the events array closed: nothing more to read
  }
  bool inEvents() const { return eventDepth_ > 0 && depth() >= eventDepth_ + 1; }

  // A value of the event at hand: its own fields (depth event + 1) and a
  // few of its args (depth event + 2).
  bool scalar(const std::string& text) { return value(text, NAN); }
  bool number(double v, const std::string& text) { return value(text, v); }
  bool value(const std::string& text, double v) {
    if (!inEvent_) return true;
    const std::string& k = stack_.back().key;
    if (depth() == eventDepth_ + 1) {
      if (k == "ph") event_.ph = text;
      else if (k == "cat") event_.cat = text;
      else if (k == "name") event_.name = text;
      else if (k == "pid") event_.pid = text;
      else if (k == "ts") event_.ts = timeOf(text, v), event_.tsText = text;
      else if (k == "dur") event_.dur = timeOf(text, v), event_.durText = text;
    } else if (depth() == eventDepth_ + 2 && stack_[std::size_t(eventDepth_)].key == "args") {
      if (k == "device" && !std::isnan(v)) event_.argDevice = (long long)v;
      else if (k == "name") event_.argName = text;
      else if (k == "Task Type") event_.taskType = text;
    }
    return true;
  }

  // Kept: process names, device kernels, and every complete event that
  // is not the host's own (msprof's carry no category; which of them are
  // the device's is known once the process names are).
  void keep() {
    if (event_.ph == "M") {
      if (event_.name == "process_name") processNames[event_.pid] = event_.argName;
      return;
    }
    if (event_.ph != "X") return;
    if (!event_.tsText.empty() && !(event_.ts >= 0 && event_.ts <= kLatestTimestamp))
      return refuse("ts " + event_.tsText + " is not a time in microseconds (from 0 to 1e17)");
    if (!event_.durText.empty() && !(event_.dur >= 0 && event_.dur <= kLongestDuration))
      return refuse("dur " + event_.durText + " is not a duration in microseconds (from 0 to a day)");
    if (std::isnan(event_.ts)) return;
    const bool device = isDeviceCategory(event_.cat);
    if (!device && !event_.cat.empty() && event_.cat != "gpu_user_annotation" && !isStepName(event_.name)) return;
    if (events.size() >= kMaxProfileKernels) {
      tooMany = true;
      return;
    }
    events.push_back({event_, device});
  }

  // Timestamps count microseconds from some start (Kineto's from 1970:
  // 1.7e15 in 2024); a kernel or step runs for less than a day.
  static constexpr double kLatestTimestamp = 1e17, kLongestDuration = 86400e6;
  // A number, or a string that holds one whole ("12.5"); else NaN, refused.
  static double timeOf(const std::string& text, double v) {
    if (!std::isnan(v)) return v;
    char* end = nullptr;
    double x = std::strtod(text.c_str(), &end);
    return !text.empty() && *end == '\0' ? x : NAN;
  }
  void refuse(const std::string& why) {
    refused = "traceEvents[" + std::to_string(event_.index) + "] ('" + printable(event_.name, false) + "'): " +
              printable(why, false);
  }

  std::vector<Level> stack_;
  std::size_t eventCount_ = 0;
  int eventDepth_ = -1;
  bool inEvent_ = false;
  Event event_;
};

// "line L, column C" of a byte offset.
std::string placeOf(const std::string& text, std::size_t at) {
  at = std::min(at, text.size());
  std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + long(at), '\n'));
  std::size_t lineStart = text.rfind('\n', at == 0 ? 0 : at - 1);
  std::size_t column = lineStart == std::string::npos ? at + 1 : at - lineStart;
  return std::to_string(line) + ":" + std::to_string(column);
}

} // namespace

Profile parseTraceJson(const std::string& text, const std::string& file, int device) {
  TraceHandler h;
  const bool ok = nlohmann::json::sax_parse(text, &h);
  if (h.tooMany)
    throw ConfigError(printable(file) + ": more than " + std::to_string(kMaxProfileKernels) +
                      " device events: profile fewer steps");
  if (!h.refused.empty()) throw ConfigError(printable(file) + ": " + h.refused);
  if (!ok) {
    std::string why = h.error.substr(h.error.find(": ") == std::string::npos ? 0 : h.error.find(": ") + 2);
    throw ConfigError(printable(file) + ":" + placeOf(text, h.errorAt) + ": not a trace-event JSON file: " +
                      printable(why));
  }
  // Ascend's processes: the hardware's tasks, and its communication.
  std::map<std::string, int> ascend; // pid -> device number, in order of pid
  std::vector<std::string> hccl;
  for (const auto& [pid, name] : h.processNames) {
    if (name.find("Ascend Hardware") != std::string::npos) ascend.emplace(pid, int(ascend.size()));
    if (name == "HCCL" || name.find("Communication") != std::string::npos) hccl.push_back(pid);
  }
  NameTable names;
  std::vector<FoundKernel> found;
  std::vector<TraceHandler::Kept> deviceSteps, hostSteps, ranges;
  bool kineto = false, ascendComm = false;
  for (const auto& k : h.events) {
    const Event& e = k.event;
    const double dur = std::isnan(e.dur) ? 0 : std::max(0.0, e.dur);
    if (k.device) {
      kineto = true;
      int d = e.argDevice >= 0 ? int(std::min<long long>(e.argDevice, 1 << 20)) : std::atoi(e.pid.c_str());
      KernelClass kind = e.cat == "kernel" ? classifyKernel(e.name) : KernelClass::Memory;
      found.push_back({e.ts, dur, kind, names.id(e.name), d});
    } else if (auto a = ascend.find(e.pid); a != ascend.end()) {
      KernelClass kind = classifyKernel(e.name, "", e.taskType);
      ascendComm |= kind == KernelClass::Communication;
      found.push_back({e.ts, dur, kind, names.id(e.name), a->second});
    } else if (e.cat == "gpu_user_annotation") {
      (isStepName(e.name) ? deviceSteps : ranges).push_back(k);
    } else if (isStepName(e.name)) {
      hostSteps.push_back(k);
    }
  }
  // msprof's communication process, when its hardware shows no collective.
  if (!ascendComm)
    for (const auto& k : h.events)
      if (std::find(hccl.begin(), hccl.end(), k.event.pid) != hccl.end() && !ascend.empty())
        found.push_back({k.event.ts, std::isnan(k.event.dur) ? 0 : std::max(0.0, k.event.dur),
                         KernelClass::Communication, names.id(k.event.name), 0});
  std::string format = kineto ? "PyTorch profiler (Kineto) trace" : "Ascend msprof / torch_npu trace";
  Profile p = keepDevice(file, format, names.take(), found, device);
  auto range = [](const TraceHandler::Kept& k) {
    return ProfileRange{k.event.ts, k.event.ts + (std::isnan(k.event.dur) ? 0 : k.event.dur), k.event.name};
  };
  for (const auto& k : deviceSteps) p.steps.push_back(range(k));
  for (const auto& k : ranges) p.layers.push_back(range(k));
  if (p.steps.empty() && !hostSteps.empty()) {
    // The host's step marks: the device runs a step's kernels from the
    // first that starts after the host began it, until the next step's.
    std::vector<ProfileRange> host;
    for (const auto& k : hostSteps) host.push_back(range(k));
    std::sort(host.begin(), host.end(), [](const ProfileRange& a, const ProfileRange& b) { return a.start < b.start; });
    auto firstAfter = [&](double t) {
      auto it = std::lower_bound(p.kernels.begin(), p.kernels.end(), t,
                                 [](const ProfileKernel& k, double v) { return k.start < v; });
      return it == p.kernels.end() ? NAN : it->start;
    };
    for (std::size_t i = 0; i < host.size(); ++i) {
      double start = firstAfter(host[i].start);
      double end = i + 1 < host.size() ? firstAfter(host[i + 1].start) : NAN;
      if (std::isnan(end)) {
        end = start;
        for (const ProfileKernel& k : p.kernels)
          if (k.start >= start) end = std::max(end, k.end);
      }
      if (!std::isnan(start) && end > start) p.steps.push_back({start, end, host[i].name});
    }
  }
  std::sort(p.steps.begin(), p.steps.end(), [](const ProfileRange& a, const ProfileRange& b) { return a.start < b.start; });
  return p;
}

} // namespace collsim
