#include "sim/trace/trace_recorder.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace collsim {

class TraceRecorder::RunSink final : public TraceSink {
public:
  RunSink(TraceRecorder& owner, int pid, std::string label, const Cluster& cluster)
      : owner_(owner), pid_(pid), label_(std::move(label)), ranks_(cluster.ranks()) {
    for (const auto& l : cluster.links) {
      const std::string &a = cluster.nodes[l.a].name, &b = cluster.nodes[l.b].name;
      channelNames_.push_back(a + " -> " + b + " (" + l.type + ")");
      channelNames_.push_back(b + " -> " + a + " (" + l.type + ")");
    }
    channelUsed_.assign(channelNames_.size(), false);
  }

  void channelBusy(std::uint32_t channel, Time start, Time end) override {
    if (!admit()) return;
    channelUsed_[channel] = true;
    events_.push_back({"busy", int(ranks_ + channel), start, end, 0});
  }
  void rankStep(int rank, int stream, int step, Time start, Time end, std::uint64_t bytesSent) override {
    if (!admit()) return;
    // Stream 0 on the rank's own track; further streams on tracks after the links'.
    int tid = stream == 0 ? rank : ranks_ + int(channelNames_.size()) + (stream - 1) * ranks_ + rank;
    if (stream > 0 && extraStreams_ < stream) extraStreams_ = stream;
    events_.push_back({"step " + std::to_string(step), tid, start, end, bytesSent});
  }

  void span(const std::string& track, const std::string& name, Time start, Time end) override {
    if (!admit()) return;
    auto it = std::find(spanTracks_.begin(), spanTracks_.end(), track);
    int index = int(it - spanTracks_.begin());
    if (it == spanTracks_.end()) spanTracks_.push_back(track);
    events_.push_back({name, kSpanTrackBase + index, start, end, 0});
  }

  void write(nlohmann::json& out) const {
    auto meta = [&](const char* what, int tid, const std::string& name) {
      nlohmann::json m = {{"name", what}, {"ph", "M"}, {"pid", pid_}, {"args", {{"name", name}}}};
      if (tid >= 0) m["tid"] = tid;
      out.push_back(std::move(m));
    };
    meta("process_name", -1, label_);
    for (int r = 0; r < ranks_; ++r) meta("thread_name", r, "rank " + std::to_string(r));
    for (std::size_t c = 0; c < channelNames_.size(); ++c)
      if (channelUsed_[c]) meta("thread_name", ranks_ + int(c), "link " + channelNames_[c]);
    for (int st = 1; st <= extraStreams_; ++st)
      for (int r = 0; r < ranks_; ++r)
        meta("thread_name", ranks_ + int(channelNames_.size()) + (st - 1) * ranks_ + r,
             "rank " + std::to_string(r) + " stream " + std::to_string(st));
    for (std::size_t i = 0; i < spanTracks_.size(); ++i) {
      meta("thread_name", kSpanTrackBase + int(i), spanTracks_[i]);
      // Model tracks above the ranks' and links'.
      out.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid_}, {"tid", kSpanTrackBase + int(i)},
                     {"args", {{"sort_index", -1000 + int(i)}}}});
    }
    for (const auto& e : events_) {
      nlohmann::json j = {{"name", e.name}, {"ph", "X"}, {"pid", pid_}, {"tid", e.tid},
                          {"ts", double(e.start) / 1e6}, {"dur", double(e.end - e.start) / 1e6}};
      if (e.name != "busy" && e.tid < kSpanTrackBase) j["args"] = {{"bytes_sent", e.bytes}};
      out.push_back(std::move(j));
    }
  }

private:
  static constexpr int kSpanTrackBase = 1 << 30;
  struct Event {
    std::string name;
    int tid;
    Time start, end;
    std::uint64_t bytes;
  };
  bool admit() {
    if (owner_.events_ >= owner_.maxEvents_) {
      owner_.truncated_ = true;
      return false;
    }
    ++owner_.events_;
    return true;
  }

  TraceRecorder& owner_;
  int pid_;
  std::string label_;
  int ranks_;
  std::vector<std::string> channelNames_;
  std::vector<bool> channelUsed_;
  int extraStreams_ = 0;
  std::vector<std::string> spanTracks_;
  std::vector<Event> events_;
};

TraceRecorder::TraceRecorder(std::size_t maxEvents) : maxEvents_(maxEvents) {}
TraceRecorder::~TraceRecorder() = default;

TraceSink* TraceRecorder::beginRun(const std::string& label, const Cluster& cluster) {
  runs_.push_back(std::make_unique<RunSink>(*this, int(runs_.size()) + 1, label, cluster));
  return runs_.back().get();
}

std::string TraceRecorder::json() const {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& r : runs_) r->write(events);
  nlohmann::json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  if (truncated_)
    doc["otherData"] = {{"truncated", "the trace reached " + std::to_string(maxEvents_) +
                                          " events; later events were not recorded"}};
  return doc.dump() + "\n";
}

} // namespace collsim
