#include "sim/validation/npkit_trace.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "sim/config/input_file.h"
#include "sim/core/input_error.h"
#include "sim/core/printable.h"

namespace collsim {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNpkitBytes = std::size_t(1) << 30;
constexpr std::size_t kMaxEvents = 50'000'000;
constexpr int kMaxDepth = 64;

// NCCL's generic primitives, as NPKit names their events (its patch to
// prims_simple.h and prims_ll*.h, NCCL 2.17.1).
constexpr const char* kPrimitives[] = {"SEND", "SEND_FROM_OUTPUT", "RECV", "RECV_REDUCE_SEND", "RECV_REDUCE_COPY",
                                       "RECV_REDUCE_COPY_SEND", "RECV_COPY_SEND", "COPY_SEND", "DIRECT_SEND",
                                       "DIRECT_SEND_FROM_OUTPUT", "DIRECT_RECV", "DIRECT_COPY_SEND",
                                       "DIRECT_RECV_COPY_SEND", "DIRECT_RECV_REDUCE_COPY_SEND"};

class Reader {
public:
  explicit Reader(std::string file) { trace_.file = std::move(file); }

  NpkitTrace read(const std::string& text) {
    checkDepth(text);
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::parse_error& e) {
      throw InputError(trace_.file + ": byte " + std::to_string(e.byte) + ": not JSON (" + e.what() + ")");
    } catch (const json::exception& e) { // a number past a double's range: the message quotes it
      const std::string what = e.what();
      const std::size_t quote = what.find('\''), end = what.rfind('\'');
      const std::size_t at = quote < end ? text.find(what.substr(quote + 1, end - quote - 1)) : std::string::npos;
      throw InputError(trace_.file + (at == std::string::npos ? "" : ": byte " + std::to_string(at + 1)) +
                       ": not readable JSON (" + what + ")");
    }
    const json* events = &doc;
    if (doc.is_object()) {
      auto it = doc.find("traceEvents");
      if (it == doc.end()) throw InputError(trace_.file + ": no \"traceEvents\": not a trace-event JSON");
      events = &*it;
    }
    if (!events->is_array()) throw InputError(trace_.file + ": traceEvents is not a list");
    if (events->size() > kMaxEvents)
      throw InputError(trace_.file + ": " + std::to_string(events->size()) + " events, more than " +
                       std::to_string(kMaxEvents) + " read");
    for (std::size_t i = 0; i < events->size(); ++i) event((*events)[i], i);
    for (const auto& [lane, open] : open_) trace_.unclosed += open.size();
    if (trace_.calls.empty())
      throw InputError(trace_.file + ": no NPKit event (a begin named NPKIT_EVENT_..._ENTRY closed by its end): "
                       "not the npkit_event_trace.json of NPKit's npkit_trace_generator.py");
    for (const NpkitCall& c : trace_.calls) trace_.ranks.push_back(c.rank);
    std::sort(trace_.ranks.begin(), trace_.ranks.end());
    trace_.ranks.erase(std::unique(trace_.ranks.begin(), trace_.ranks.end()), trace_.ranks.end());
    return std::move(trace_);
  }

private:
  // An NPKit trace nests three deep; a document much deeper is not one,
  // and would cost the parser a stack frame per level. (Bytes are counted
  // from 1 in messages, as nlohmann::json counts them.)
  void checkDepth(const std::string& text) const {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (inString) {
        if (c == '\\') ++i;
        else if (c == '"') inString = false;
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxDepth)
          throw InputError(trace_.file + ": byte " + std::to_string(i + 1) + ": nested deeper than " +
                           std::to_string(kMaxDepth) + ": not an NPKit trace");
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
  }

  struct Open {
    int kind;
    double bytes, start;
  };

  [[noreturn]] void fail(std::size_t i, const std::string& what) const {
    throw InputError(trace_.file + ": traceEvents[" + std::to_string(i) + "]: " + what);
  }

  double number(const json& e, const char* key, std::size_t i) const {
    auto it = e.find(key);
    if (it == e.end() || !it->is_number()) fail(i, std::string("no number \"") + key + "\"");
    double v = it->get<double>();
    if (!std::isfinite(v)) fail(i, std::string("\"") + key + "\" is not finite");
    return v;
  }

  int whole(const json& e, const char* key, std::size_t i) const {
    double v = number(e, key, i);
    if (v != std::floor(v) || v < 0 || v > 1e9) fail(i, std::string("\"") + key + "\" is not a whole number from 0");
    return int(v);
  }

  void event(const json& e, std::size_t i) {
    if (!e.is_object()) fail(i, "not an object");
    auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string()) fail(i, "no \"ph\" (event phase)");
    const std::string phase = ph->get<std::string>();
    if (phase != "B" && phase != "E") return; // metadata and other events: not NPKit's
    const std::pair<int, int> lane{whole(e, "pid", i), whole(e, "tid", i)};
    const double ts = number(e, "ts", i);
    // NPKit counts from the trace's start: an earlier time is no measurement (one gave a fit of -177 us).
    if (ts < 0) fail(i, "\"ts\" " + std::to_string(ts) + " is negative: NPKit's times count from the trace's start");
    if (phase == "B") {
      auto name = e.find("name");
      if (name == e.end() || !name->is_string()) fail(i, "a begin (B) with no \"name\"");
      const std::string n = name->get<std::string>();
      const std::string prefix = "NPKIT_EVENT_", suffix = "_ENTRY";
      if (n.size() <= prefix.size() + suffix.size() || n.rfind(prefix, 0) != 0 ||
          n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
        fail(i, "'" + printable(n, false) + "' is not an NPKit event (NPKIT_EVENT_..._ENTRY)");
      auto args = e.find("args");
      if (args == e.end() || !args->is_object()) fail(i, "a begin with no \"args\" (its size_0)");
      const double bytes = number(*args, "size_0", i);
      if (bytes < 0) fail(i, "size_0 is negative");
      open_[lane].push_back({kindOf(n.substr(prefix.size(), n.size() - prefix.size() - suffix.size())), bytes, ts});
      return;
    }
    auto it = open_.find(lane);
    if (it == open_.end() || it->second.empty())
      fail(i, "an end (E) on rank " + std::to_string(lane.first) + ", lane " + std::to_string(lane.second) +
                  " that no begin opened");
    const Open o = it->second.back();
    it->second.pop_back();
    if (ts < o.start) fail(i, "ends at " + std::to_string(ts) + " us, before its begin at " + std::to_string(o.start));
    trace_.calls.push_back({o.kind, lane.first, o.bytes, o.start, ts});
  }

  int kindOf(const std::string& kind) {
    auto [it, added] = kinds_.emplace(kind, int(trace_.kinds.size()));
    if (added) trace_.kinds.push_back(kind);
    return it->second;
  }

  NpkitTrace trace_;
  std::map<std::string, int> kinds_;
  std::map<std::pair<int, int>, std::vector<Open>> open_; // per (rank, lane): begins not yet ended
};

// Sums of one primitive's calls, for the normal equations.
struct Sums {
  double n = 0, x = 0, y = 0, xx = 0, xy = 0;
  double minX = INFINITY, maxX = -INFINITY;
  void add(double bytes, double us) {
    n += 1, x += bytes, y += us, xx += bytes * bytes, xy += bytes * us;
    minX = std::min(minX, bytes), maxX = std::max(maxX, bytes);
  }
};

} // namespace

bool isNpkitPrimitive(const std::string& kind) {
  return std::find(std::begin(kPrimitives), std::end(kPrimitives), kind) != std::end(kPrimitives);
}

NpkitTrace parseNpkitTrace(const std::string& text, const std::string& file) { return Reader(file).read(text); }

NpkitTrace readNpkitTrace(const std::string& path) {
  return parseNpkitTrace(readInputFile(path, "NPKit trace", kMaxNpkitBytes), path);
}

// Least squares with one intercept a shared and a slope b_p per primitive:
//   b_p = (XY_p - X_p a) / XX_p,
//   a (N - sum X_p^2 / XX_p) = Y - sum X_p XY_p / XX_p.
// The bracket is above 0 when some primitive has two sizes (Cauchy-Schwarz:
// X_p^2 <= n_p XX_p, equal only when its sizes are all one).
StepCostFit fitStepCost(const NpkitTrace& trace) {
  std::map<int, Sums> sums;
  std::map<int, std::size_t> others;
  for (const NpkitCall& c : trace.calls) {
    if (isNpkitPrimitive(trace.kinds[std::size_t(c.kind)])) sums[c.kind].add(c.bytes, c.end - c.start);
    else ++others[c.kind];
  }
  StepCostFit fit;
  for (const auto& [kind, n] : others) fit.notFitted.emplace_back(trace.kinds[std::size_t(kind)], n);
  if (sums.empty())
    throw InputError(trace.file + ": no call of NCCL's primitives (SEND, RECV_REDUCE_SEND, DIRECT_RECV_REDUCE_COPY_SEND, "
                                  "...): profile them with NPKit's ENABLE_NPKIT_EVENT_<PRIMITIVE>_ENTRY/_EXIT flags");
  double n = 0, y = 0, lhs = 0, rhs = 0;
  for (const auto& [kind, s] : sums) {
    n += s.n, y += s.y;
    if (s.xx > 0) lhs += s.x * s.x / s.xx, rhs += s.x * s.xy / s.xx;
  }
  const double bracket = n - lhs;
  if (!(bracket > 1e-9 * n))
    throw InputError(trace.file + ": every primitive's calls move one size: the fixed cost of a step cannot be told "
                                  "from the time of its bytes (profile two message sizes, e.g. nccl-tests -b 1M -e 64M)");
  const double a = (y - rhs) / bracket;
  if (a < 0)
    throw InputError(trace.file + ": the calls fit a fixed cost of " + std::to_string(a) +
                     " us a step, below zero: their times do not grow with their bytes as a fixed cost plus a rate "
                     "(a trace of several runs, or clocks that differ between lanes?)");
  fit.fixedMicroseconds = a;
  // Each primitive's slope, then its residuals in one more pass over the calls.
  std::map<int, double> slope, squares;
  for (const auto& [kind, s] : sums) slope[kind] = s.xx > 0 ? (s.xy - s.x * a) / s.xx : 0;
  for (const NpkitCall& c : trace.calls)
    if (auto it = slope.find(c.kind); it != slope.end()) {
      const double r = (c.end - c.start) - a - it->second * c.bytes;
      squares[c.kind] += r * r;
    }
  for (const auto& [kind, s] : sums) {
    PrimitiveFit p;
    p.kind = trace.kinds[std::size_t(kind)];
    p.calls = std::size_t(s.n);
    p.minBytes = s.minX, p.maxBytes = s.maxX;
    p.gbPerSecond = slope[kind] > 0 ? 1e-3 / slope[kind] : 0; // bytes per us -> GB/s
    p.rmsMicroseconds = std::sqrt(squares[kind] / s.n);
    fit.primitives.push_back(p);
    fit.calls += p.calls;
  }
  return fit;
}

} // namespace collsim
