#include "algorithms/core/schedule.h"

#include <stdexcept>

#include "algorithms/core/enum_names.h"

namespace collsim {

namespace {
constexpr std::array<Named<Collective>, 6> kCollectives = {{{Collective::AllReduce, "allreduce"},
                                                             {Collective::ReduceScatter, "reducescatter"},
                                                             {Collective::AllGather, "allgather"},
                                                             {Collective::Broadcast, "broadcast"},
                                                             {Collective::Reduce, "reduce"},
                                                             {Collective::AllToAll, "alltoall"}}};
} // namespace

const char* collectiveName(Collective c) { return nameOf(kCollectives, c); }

bool parseCollective(const std::string& name, Collective& out) { return parseName(kCollectives, name, out); }

std::vector<std::string> collectiveNames() {
  std::vector<std::string> names;
  for (const auto& n : kCollectives) names.emplace_back(n.name);
  return names;
}

double busBandwidthFactor(Collective c, int ranks) {
  double p = ranks;
  switch (c) {
  case Collective::AllReduce: return 2.0 * (p - 1) / p;
  case Collective::ReduceScatter:
  case Collective::AllGather:
  case Collective::AllToAll: return (p - 1) / p;
  case Collective::Broadcast:
  case Collective::Reduce: return 1.0;
  }
  return 1.0;
}

Block blockOf(std::uint64_t count, int parts, int i) {
  std::uint64_t base = count / std::uint64_t(parts);
  std::uint64_t extra = count % std::uint64_t(parts);
  std::uint64_t idx = std::uint64_t(i);
  std::uint64_t first = idx * base + (idx < extra ? idx : extra);
  return {first, base + (idx < extra ? 1 : 0)};
}

MaterializedSchedule materialize(const Schedule& s) {
  if (s.streamCount() != 1) throw std::invalid_argument("materialize takes a single-stream schedule");
  MaterializedSchedule out(std::size_t(s.ranks()));
  for (int r = 0; r < s.ranks(); ++r) {
    out[r].resize(std::size_t(s.stepCount(r)));
    for (int k = 0; k < s.stepCount(r); ++k) s.appendOps(r, k, out[r][k]);
  }
  return out;
}

void ExplicitSchedule::appendOps(int rank, int step, std::vector<Op>& out) const {
  const auto& ops = steps_[rank][step];
  out.insert(out.end(), ops.begin(), ops.end());
}

} // namespace collsim
