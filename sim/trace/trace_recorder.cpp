#include "sim/trace/trace_recorder.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace collsim {
namespace {

constexpr Time kCounterResolution = 1'000'000; // 1 us: one sample per counter per microsecond

double us(Time t) { return double(t) / 1e6; }

const char* kindName(OpKind k) {
  switch (k) {
  case OpKind::Send: return "send";
  case OpKind::Recv: return "recv";
  case OpKind::RecvReduce: return "recv-reduce";
  case OpKind::Copy: return "copy";
  case OpKind::Wait: return "wait";
  case OpKind::Compute: return "compute";
  }
  return "?";
}

// Appends events to the trace's text one by one: a large trace is never
// held as a JSON document (which took some ten times its text's memory).
class EventWriter {
public:
  explicit EventWriter(std::string& text) : text_(text) {}
  void push_back(const nlohmann::json& event) {
    if (any_) text_ += ',';
    text_ += event.dump();
    any_ = true;
  }

private:
  std::string& text_;
  bool any_ = false;
};

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

} // namespace

class TraceRecorder::RunSink final : public TraceSink {
public:
  RunSink(TraceRecorder& owner, int pid, std::string label, const Cluster& cluster)
      : owner_(owner), pid_(pid), label_(std::move(label)), ranks_(cluster.ranks()), cluster_(cluster) {
    selectedRank_.assign(std::size_t(ranks_), owner.ranks_.empty());
    for (int r : owner.ranks_)
      if (r < ranks_) selectedRank_[std::size_t(r)] = owner.ranksFound_ = true;
    // The nodes a filtered trace keeps: the selected ranks' devices and the NICs next to them.
    std::vector<bool> device(cluster.nodes.size(), false);
    for (int r = 0; r < ranks_; ++r)
      if (selectedRank_[std::size_t(r)]) device[std::size_t(cluster.rankNode[std::size_t(r)])] = true;
    selectedNode_ = device;
    for (const auto& l : cluster.links)
      for (auto [from, to] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
        if (device[std::size_t(from)] && cluster.nodes[std::size_t(to)].kind == NodeKind::Nic)
          selectedNode_[std::size_t(to)] = true;
    for (const auto& l : cluster.links) {
      const std::string &a = cluster.nodes[l.a].name, &b = cluster.nodes[l.b].name;
      // Without a rank filter every link direction is kept, switch to switch too.
      bool kept = owner.ranks_.empty() || selectedNode_[std::size_t(l.a)] || selectedNode_[std::size_t(l.b)];
      const std::string& tier = cluster.tierName(l);
      channelNames_.push_back(a + " -> " + b + " (" + tier + ")");
      channelNames_.push_back(b + " -> " + a + " (" + tier + ")");
      channelKept_.push_back(kept);
      channelKept_.push_back(kept);
    }
    channelUsed_.assign(channelNames_.size(), false);
  }

  void channelBusy(std::uint32_t channel, Time start, Time end) override {
    if (!channelKept_[channel] || !admit(1)) return;
    channelUsed_[channel] = true;
    busy_.push_back({int(channel), start, end});
  }

  void rankStep(const StepTrace& s) override {
    if (!selectedRank_[std::size_t(s.rank)]) return;
    // Number its sends and receives per peer even when the step is not
    // recorded: a message's sequence number finds its steps (writeFlows).
    const bool kept = admit(1);
    const std::uint32_t index = kept ? std::uint32_t(steps_.size()) : kNotRecorded;
    if (s.ops)
      for (const Op& op : *s.ops) {
        if (op.kind == OpKind::Send) sendsBy_[pairKey(s.rank, s.stream, op.peer)].push_back(index);
        if (op.kind == OpKind::Recv || op.kind == OpKind::RecvReduce)
          receivesBy_[pairKey(s.rank, s.stream, op.peer)].push_back(index);
      }
    if (!kept) return;
    Step e{s.rank, s.stream, s.step, s.start, s.end, s.bytesSent, 0, s.place, 0, std::uint32_t(peers_.size()), 0, 0};
    if (s.ops) {
      std::vector<int> sends, recvs;
      for (const Op& op : *s.ops) {
        e.kinds |= 1u << unsigned(op.kind);
        if (op.kind == OpKind::Send) sends.push_back(op.peer);
        if (op.kind == OpKind::Recv || op.kind == OpKind::RecvReduce) recvs.push_back(op.peer), e.bytesReceived += op.bytes;
      }
      peers_.insert(peers_.end(), sends.begin(), sends.end());
      peers_.insert(peers_.end(), recvs.begin(), recvs.end());
      e.sends = std::uint32_t(sends.size());
      e.recvs = std::uint32_t(recvs.size());
    }
    maxStream_ = std::max(maxStream_, s.stream);
    steps_.push_back(e);
  }

  void message(const MessageTrace& m) override {
    if (!selectedRank_[std::size_t(m.src)] || !selectedRank_[std::size_t(m.dst)] || !admit(2)) return;
    messages_.push_back(m);
  }

  void counter(const CounterTrack& track, Time at, double value) override {
    if (!counterKept(track)) return;
    auto key = std::pair{int(track.kind), track.index};
    auto [it, fresh] = counterIndex_.try_emplace(key, counters_.size());
    if (fresh) counters_.push_back({counterName(track), {}, -kCounterResolution, 0, false});
    Counter& c = counters_[it->second];
    // Keep the last value of each microsecond: a sample waits until the next
    // one shows whether it was the last.
    if (c.pending && at - c.lastWritten >= kCounterResolution) flush(c);
    c.pendingAt = at;
    c.pendingValue = value;
    c.pending = true;
  }

  void span(const std::string& track, const std::string& name, Time start, Time end) override {
    if (!admit(1)) return;
    auto it = std::find(spanTracks_.begin(), spanTracks_.end(), track);
    int index = int(it - spanTracks_.begin());
    if (it == spanTracks_.end()) spanTracks_.push_back(track);
    spans_.push_back({name, index, start, end});
  }

  void write(EventWriter& out) const {
    auto meta = [&](const char* what, int tid, const std::string& name) {
      nlohmann::json m = {{"name", what}, {"ph", "M"}, {"pid", pid_}, {"args", {{"name", name}}}};
      if (tid >= 0) m["tid"] = tid;
      out.push_back(std::move(m));
    };
    meta("process_name", -1, label_);
    // Tracks: ranks' streams first, then links, then the model's spans on top.
    std::vector<bool> rankTrackUsed(std::size_t(ranks_) * std::size_t(maxStream_ + 1), false);
    for (const auto& s : steps_) rankTrackUsed[std::size_t(rankTid(s.rank, s.stream))] = true;
    for (std::size_t t = 0; t < rankTrackUsed.size(); ++t) {
      if (!rankTrackUsed[t]) continue;
      int rank = int(t) % ranks_, stream = int(t) / ranks_;
      meta("thread_name", int(t), "rank " + std::to_string(rank) + (stream ? " stream " + std::to_string(stream) : ""));
    }
    const int linkBase = int(rankTrackUsed.size());
    for (std::size_t c = 0; c < channelNames_.size(); ++c)
      if (channelUsed_[c]) meta("thread_name", linkBase + int(c), "link " + channelNames_[c]);
    for (std::size_t i = 0; i < spanTracks_.size(); ++i) {
      meta("thread_name", kSpanTrackBase + int(i), spanTracks_[i]);
      out.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", pid_}, {"tid", kSpanTrackBase + int(i)},
                     {"args", {{"sort_index", -1000 + int(i)}}}});
    }
    for (const auto& s : steps_) out.push_back(stepEvent(s));
    for (const auto& b : busy_)
      out.push_back({{"name", "busy"}, {"ph", "X"}, {"pid", pid_}, {"tid", linkBase + b.channel},
                     {"ts", us(b.start)}, {"dur", us(b.end - b.start)}});
    for (const auto& s : spans_)
      out.push_back({{"name", s.name}, {"ph", "X"}, {"pid", pid_}, {"tid", kSpanTrackBase + s.track},
                     {"ts", us(s.start)}, {"dur", us(s.end - s.start)}});
    writeFlows(out);
    auto sample = [&](const Counter& c, Time at, double value) {
      out.push_back({{"name", c.name}, {"ph", "C"}, {"pid", pid_}, {"ts", us(at)}, {"args", {{c.unit(), c.shown(value)}}}});
    };
    for (const auto& c : counters_) {
      for (const auto& [at, value] : c.samples) sample(c, at, value);
      // The value each counter ends the run with (not counted against the limit).
      if (c.pending && (c.samples.empty() || c.samples.back().second != c.pendingValue))
        sample(c, c.pendingAt, c.pendingValue);
    }
  }

private:
  static constexpr int kSpanTrackBase = 1 << 30;
  struct Step {
    int rank, stream, step;
    Time start, end;
    std::uint64_t bytesSent, bytesReceived;
    StepPlace place;
    std::uint32_t kinds;               // bit per OpKind present
    std::uint32_t firstPeer, sends, recvs; // peers_[firstPeer...]: sent to, then received from
  };
  struct Busy {
    int channel;
    Time start, end;
  };
  struct Span {
    std::string name;
    int track;
    Time start, end;
  };
  struct Counter {
    std::string name;
    std::vector<std::pair<Time, double>> samples;
    Time lastWritten;
    Time pendingAt = 0;
    bool pending = false;
    double pendingValue = 0;
    bool rate() const { return name.rfind("DCQCN", 0) == 0; }
    const char* unit() const { return rate() ? "GB/s" : name.rfind("PFC", 0) == 0 ? "paused" : "bytes"; }
    double shown(double value) const { return rate() ? value / 1e9 : value; } // rates are kept in bytes/s
  };

  int rankTid(int rank, int stream) const { return stream * ranks_ + rank; }
  static constexpr std::uint32_t kNotRecorded = ~0u;
  static std::uint64_t pairKey(int rank, int stream, int peer) {
    return std::uint64_t(std::uint32_t(rank)) << 40 | std::uint64_t(std::uint32_t(stream)) << 24 | std::uint32_t(peer);
  }
  // The step of `rank`'s `seq`-th send to (or receive from) `peer` on `stream`.
  std::uint32_t stepOf(const std::unordered_map<std::uint64_t, std::vector<std::uint32_t>>& by, int rank, int stream,
                       int peer, std::uint32_t seq) const {
    auto it = by.find(pairKey(rank, stream, peer));
    return it == by.end() || seq >= it->second.size() ? kNotRecorded : it->second[seq];
  }

  bool admit(std::size_t events) {
    if (owner_.events_ + events > owner_.maxEvents_) {
      owner_.truncated_ = true;
      return false;
    }
    owner_.events_ += events;
    return true;
  }

  bool counterKept(const CounterTrack& t) const {
    if (t.kind == CounterTrack::Kind::QpRate)
      return selectedNode_[std::size_t(t.src)] || selectedNode_[std::size_t(t.dst)];
    return channelKept_[t.index];
  }
  std::string counterName(const CounterTrack& t) const {
    switch (t.kind) {
    case CounterTrack::Kind::QueueBytes: return "queue " + channelNames_[t.index];
    case CounterTrack::Kind::PfcPaused: return "PFC " + channelNames_[t.index];
    case CounterTrack::Kind::QpRate:
      return "DCQCN QP " + std::to_string(t.index) + " " + cluster_.nodes[std::size_t(t.src)].name + " -> " +
             cluster_.nodes[std::size_t(t.dst)].name;
    }
    return "";
  }
  void flush(Counter& c) {
    c.pending = false;
    if (!c.samples.empty() && c.samples.back().second == c.pendingValue) return;
    if (!admit(1)) return;
    c.samples.emplace_back(c.pendingAt, c.pendingValue);
    c.lastWritten = c.pendingAt;
  }

  nlohmann::json stepEvent(const Step& s) const {
    nlohmann::json args = {{"stream", s.stream}, {"step", s.step}, {"bytes_sent", s.bytesSent},
                           {"bytes_received", s.bytesReceived}};
    if (s.place.phase >= 0) args["phase"] = std::to_string(s.place.phase + 1) + "/" + std::to_string(s.place.phases);
    if (s.place.chunk >= 0) args["chunk"] = s.place.chunk;
    std::vector<int> sends(peers_.begin() + s.firstPeer, peers_.begin() + s.firstPeer + s.sends);
    std::vector<int> recvs(peers_.begin() + s.firstPeer + s.sends, peers_.begin() + s.firstPeer + s.sends + s.recvs);
    if (!sends.empty()) args["sends_to"] = joined(sends);
    if (!recvs.empty()) args["receives_from"] = joined(recvs);
    std::string ops;
    for (unsigned k = 0; k <= unsigned(OpKind::Compute); ++k)
      if (s.kinds >> k & 1u) ops += (ops.empty() ? "" : "+") + std::string(kindName(OpKind(k)));
    if (!ops.empty()) args["ops"] = ops;
    std::string name = "step " + std::to_string(s.step);
    if (!ops.empty()) name += " " + ops;
    return {{"name", name}, {"ph", "X"}, {"pid", pid_}, {"tid", rankTid(s.rank, s.stream)}, {"ts", us(s.start)},
            {"dur", us(s.end - s.start)}, {"args", std::move(args)}};
  }

  // Arrows from the step that posted a send to the step that received it:
  // the message's sequence number between the two is the index of that send
  // among the sender's to the receiver, and of that receive among the
  // receiver's from the sender. The tail is where the send was posted and the
  // head where the message arrived, each moved strictly inside its step (a
  // step's ends touch its neighbours', and a viewer binds an end to the slice
  // around it; a message may arrive before its receive starts). A message
  // arrives after it is posted, so no arrow runs backwards; the last max()
  // holds that even for a step too short to hold both ends apart.
  void writeFlows(EventWriter& out) const {
    std::uint64_t id = std::uint64_t(pid_) << 40;
    for (const auto& m : messages_) {
      std::uint32_t sender = stepOf(sendsBy_, m.src, m.stream, m.dst, m.seq);
      std::uint32_t receiver = stepOf(receivesBy_, m.dst, m.stream, m.src, m.seq);
      if (sender == kNotRecorded || receiver == kNotRecorded) continue;
      const double sentAt = insideStep(steps_[sender], m.posted);
      const double gotAt = std::max(insideStep(steps_[receiver], m.arrived), sentAt);
      ++id;
      out.push_back({{"name", "message"}, {"cat", "message"}, {"ph", "s"}, {"id", id}, {"pid", pid_},
                     {"tid", rankTid(m.src, m.stream)}, {"ts", sentAt}, {"args", {{"bytes", m.bytes}}}});
      out.push_back({{"name", "message"}, {"cat", "message"}, {"ph", "f"}, {"bp", "e"}, {"id", id}, {"pid", pid_},
                     {"tid", rankTid(m.dst, m.stream)}, {"ts", gotAt}});
    }
  }

  // `at` in microseconds, moved to at least a nanosecond inside the step
  // (viewers keep nanoseconds), or to its middle when it is shorter than 2 ns.
  static double insideStep(const Step& s, Time at) {
    const Time margin = std::min<Time>(1000, (s.end - s.start) / 2);
    return us(std::clamp(at, s.start + margin, s.end - margin));
  }

  TraceRecorder& owner_;
  int pid_;
  std::string label_;
  int ranks_;
  const Cluster& cluster_;
  std::vector<bool> selectedRank_, selectedNode_;
  std::vector<std::string> channelNames_;
  std::vector<bool> channelKept_, channelUsed_;
  int maxStream_ = 0;
  std::vector<Step> steps_;
  std::vector<int> peers_;
  std::vector<Busy> busy_;
  std::vector<Span> spans_;
  std::vector<std::string> spanTracks_;
  std::vector<MessageTrace> messages_;
  // Per (rank, stream, peer): the step of each send to the peer, and of each
  // receive from it, in order (kNotRecorded past the event limit).
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> sendsBy_, receivesBy_;
  std::map<std::pair<int, std::uint32_t>, std::size_t> counterIndex_;
  std::vector<Counter> counters_;
};

TraceRecorder::TraceRecorder(std::size_t maxEvents, std::vector<int> ranks)
    : maxEvents_(maxEvents), ranks_(std::move(ranks)) {}
TraceRecorder::~TraceRecorder() = default;

TraceSink* TraceRecorder::beginRun(const std::string& label, const Cluster& cluster) {
  runs_.push_back(std::make_unique<RunSink>(*this, int(runs_.size()) + 1, label, cluster));
  return runs_.back().get();
}

std::string TraceRecorder::json() const {
  std::string text = "{\"displayTimeUnit\":\"ns\",";
  if (truncated_)
    text += "\"otherData\":" +
            nlohmann::json{{"truncated", "the trace reached " + std::to_string(maxEvents_) +
                                             " events; later events were not recorded"}}
                .dump() +
            ",";
  text += "\"traceEvents\":[";
  EventWriter events(text);
  for (const auto& r : runs_) r->write(events);
  return text + "]}\n";
}

std::vector<int> parseRankList(const std::string& text) {
  std::vector<int> ranks;
  std::size_t at = 0;
  auto number = [&](std::size_t& i) {
    std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == start || i - start > 9)
      throw std::invalid_argument("expected a rank number at '" + text.substr(start) + "' (ranks: 0-7,12)");
    return std::stoi(text.substr(start, i - start));
  };
  while (at <= text.size()) {
    int first = number(at), last = first;
    if (at < text.size() && text[at] == '-') last = number(++at);
    if (last < first) throw std::invalid_argument("range " + std::to_string(first) + "-" + std::to_string(last) + " runs backwards");
    if (std::uint64_t(last - first) + ranks.size() > 10'000'000) throw std::invalid_argument("too many ranks");
    for (int r = first; r <= last; ++r) ranks.push_back(r);
    if (at == text.size()) break;
    if (text[at] != ',') throw std::invalid_argument("unexpected '" + text.substr(at, 1) + "' (ranks: 0-7,12)");
    ++at;
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

} // namespace collsim
