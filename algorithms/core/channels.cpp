#include "algorithms/core/channels.h"

#include "algorithms/core/compose.h"
#include "algorithms/core/group_view.h"

namespace collsim {

int channelMember(int i, int k, int ranks, int devicesPerServer, const ServerRings& rings) {
  int d = devicesPerServer > 0 && ranks % devicesPerServer == 0 ? devicesPerServer : ranks;
  int r = int(rings.size());
  if (r > 0 && int(rings.front().size()) == d) return i / d * d + rings[std::size_t(k % r)][std::size_t(wrap(i % d + k / r, d))];
  return i / d * d + wrap(i % d + k, d);
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
      std::vector<int> members;
      for (int i = 0; i < g.size(); ++i)
        members.push_back(g.global(channelMember(i, k, g.size(), spec.devicesPerServer, rings)));
      streams.push_back(entry.build(g.sub(members, blockOf(g.count(), channels, k)), spec));
    }
    if (streams.size() == 1) return std::move(streams.front());
    return std::make_unique<StreamsSchedule>(std::move(streams));
  };
  // The cost model knows one link per rank, which the channels share: the
  // one-channel cost stands.
  e.unsupported = [entry, channels](const CollectiveSpec& spec) -> std::string {
    if (spec.op != Collective::AllReduce) return "channels are for allreduce only (yet)";
    if (std::string why = entry.unsupported(spec); !why.empty()) return why;
    if (channels > 1 && entry.build(GroupView::whole(spec), spec)->streamCount() > 1)
      return entry.name + " already runs as several streams: it cannot be split into channels";
    return {};
  };
  return e;
}

} // namespace collsim
