#include "algorithms/core/channels.h"

#include "algorithms/core/compose.h"
#include "algorithms/core/group_view.h"

#include <memory>

namespace collsim {
namespace {

// Stream `index` of a channel's multi-stream schedule, its Waits pointing
// `base` streams further on.
class ChannelStream final : public Schedule {
public:
  ChannelStream(std::shared_ptr<const Schedule> channel, int index, int base)
      : channel_(std::move(channel)), index_(index), base_(base) {}
  int ranks() const override { return channel_->ranks(); }
  int stepCount(int rank) const override { return channel_->stream(index_).stepCount(rank); }
  void appendOps(int rank, int step, std::vector<Op>& out) const override {
    std::size_t first = out.size();
    channel_->stream(index_).appendOps(rank, step, out);
    for (std::size_t i = first; i < out.size(); ++i)
      if (out[i].kind == OpKind::Wait) out[i].peer += base_;
  }
  StepPlace place(int rank, int step) const override { return channel_->stream(index_).place(rank, step); }

private:
  std::shared_ptr<const Schedule> channel_;
  int index_, base_;
};

// Where channel k enters a server along ring k mod R: at the first position
// whose device, and whose predecessor (where the channel leaves), have
// served the fewest channels before it (chosen the same way). Over C
// channels every device is entered and left by about C/D of them, so with
// a NIC per device or per pair the traffic between servers spreads over
// every NIC, as NCCL's search spreads its rings' ends.
int ringEntry(int k, const ServerRings& rings) {
  const int r = int(rings.size()), d = int(rings.front().size());
  std::vector<int> entered(std::size_t(d), 0), left(std::size_t(d), 0);
  int best = 0;
  for (int c = 0; c <= k; ++c) {
    const std::vector<int>& ring = rings[std::size_t(c % r)];
    best = 0;
    for (int p = 1; p < d; ++p) {
      auto load = [&](int q) { return entered[ring[q]] + left[ring[wrap(q - 1, d)]]; };
      if (load(p) < load(best)) best = p;
    }
    ++entered[ring[best]];
    ++left[ring[wrap(best - 1, d)]];
  }
  return best;
}

} // namespace

std::vector<int> channelOrder(int k, int ranks, int devicesPerServer, const ServerRings& rings) {
  int d = devicesPerServer > 0 && ranks % devicesPerServer == 0 ? devicesPerServer : ranks;
  int r = int(rings.size());
  bool alongRings = r > 0 && int(rings.front().size()) == d;
  // Worked out once a channel: it replays the channels before it.
  int entry = alongRings ? ringEntry(k, rings) : k;
  std::vector<int> order(static_cast<std::size_t>(ranks));
  for (int i = 0; i < ranks; ++i)
    order[i] = i / d * d + (alongRings ? rings[std::size_t(k % r)][std::size_t(wrap(i % d + entry, d))] : wrap(i % d + entry, d));
  return order;
}

int channelMember(int i, int k, int ranks, int devicesPerServer, const ServerRings& rings) {
  return channelOrder(k, ranks, devicesPerServer, rings)[std::size_t(i)];
}

AlgorithmEntry withChannels(const AlgorithmEntry& entry, int channels, const ServerRings& rings) {
  if (channels <= 1 && rings.empty()) return entry;
  AlgorithmEntry e = entry;
  if (channels > 1) {
    e.name = entry.name + " x" + std::to_string(channels);
    e.summary = entry.summary + ", as " + std::to_string(channels) + " channels";
  }
  e.build = [entry, channels, rings](const GroupView& g, const CollectiveSpec& spec) -> SchedulePtr {
    std::vector<SchedulePtr> streams;
    for (int k = 0; k < channels; ++k) {
      std::vector<int> members = channelOrder(k, g.size(), spec.devicesPerServer, rings);
      for (int& m : members) m = g.global(m);
      SchedulePtr channel = entry.build(g.sub(members, blockOf(g.count(), channels, k)), spec);
      if (channels == 1) return channel;
      if (channel->streamCount() == 1) {
        streams.push_back(std::move(channel));
        continue;
      }
      // A channel of several streams contributes each of them, its Waits
      // renumbered to where its streams now are.
      std::shared_ptr<const Schedule> shared(std::move(channel));
      int base = int(streams.size());
      for (int s = 0; s < shared->streamCount(); ++s) streams.push_back(std::make_unique<ChannelStream>(shared, s, base));
    }
    return std::make_unique<StreamsSchedule>(std::move(streams));
  };
  // The cost model knows one link per rank, which the channels share: the
  // one-channel cost stands.
  e.unsupported = [entry](const CollectiveSpec& spec) -> std::string {
    if (spec.op != Collective::AllReduce) return "channels are for allreduce only (yet)";
    return entry.unsupported(spec);
  };
  return e;
}

} // namespace collsim
