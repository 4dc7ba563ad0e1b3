#include "sim/workload/parallel_layout.h"
#include "sim/workload/training.h"

namespace collsim {

const char* frameworkName(Framework f) {
  switch (f) {
  case Framework::Ddp: return "ddp";
  case Framework::Fsdp: return "fsdp";
  case Framework::Megatron: return "megatron";
  case Framework::DeepSpeed: return "deepspeed";
  }
  return "?";
}

const char* pipelineKindName(PipelineKind k) {
  return k == PipelineKind::GPipe ? "gpipe" : k == PipelineKind::OneFOneB ? "1f1b" : "interleaved";
}

std::string ParallelLayout::text() const {
  std::string s = "tp" + std::to_string(tp) + (cp > 1 ? " cp" + std::to_string(cp) : "") + " pp" + std::to_string(pp) +
                  " dp" + std::to_string(dp);
  if (ep > 1) s += " ep" + std::to_string(ep);
  if (zero > 0) s += " zero" + std::to_string(zero);
  if (sequenceParallel) s += " sp";
  if (pp > 1) s += " m" + std::to_string(microBatches) + " " + pipelineKindName(schedule);
  if (pp > 1 && schedule == PipelineKind::Interleaved) s += " v" + std::to_string(virtualStages);
  return s;
}

RankPlacement::RankPlacement(const ParallelLayout& layout) : layout_(layout) {}

int RankPlacement::stride(char dimension) const {
  int s = 1;
  for (char d : layout_.order) {
    if (d == dimension) return s;
    s *= d == 't' ? layout_.tp : d == 'c' ? layout_.cp : d == 'd' ? layout_.dp : layout_.pp;
  }
  return s;
}

int RankPlacement::rank(LayoutCoordinates c) const {
  return c.tp * stride('t') + c.dp * stride('d') + c.pp * stride('p') + c.cp * stride('c');
}

LayoutCoordinates RankPlacement::of(int rank) const {
  return {rank / stride('t') % layout_.tp, rank / stride('d') % layout_.dp, rank / stride('p') % layout_.pp,
          rank / stride('c') % layout_.cp};
}

std::vector<int> RankPlacement::along(int rank, char dimension, int size) const {
  int step = stride(dimension);
  int first = rank - (rank / step % size) * step;
  std::vector<int> out;
  for (int i = 0; i < size; ++i) out.push_back(first + i * step);
  return out;
}

std::vector<int> RankPlacement::tpGroup(int rank) const { return along(rank, 't', layout_.tp); }
std::vector<int> RankPlacement::cpGroup(int rank) const { return along(rank, 'c', layout_.cp); }
std::vector<int> RankPlacement::dpGroup(int rank) const { return along(rank, 'd', layout_.dp); }
std::vector<int> RankPlacement::stages(int rank) const { return along(rank, 'p', layout_.pp); }

std::vector<int> RankPlacement::gradientGroup(int rank) const {
  if (layout_.cp == 1) return dpGroup(rank);
  std::vector<int> out;
  for (int member : dpGroup(rank))
    for (int r : cpGroup(member)) out.push_back(r);
  return out;
}

std::vector<int> RankPlacement::epGroup(int rank) const {
  std::vector<int> dp = dpGroup(rank), out;
  int first = of(rank).dp / layout_.ep * layout_.ep;
  for (int i = 0; i < layout_.ep; ++i) out.push_back(dp[std::size_t(first + i)]);
  return out;
}

std::vector<int> RankPlacement::expertDpGroup(int rank) const {
  std::vector<int> dp = dpGroup(rank), out;
  for (int i = of(rank).dp % layout_.ep; i < layout_.dp; i += layout_.ep) out.push_back(dp[std::size_t(i)]);
  return out;
}

int RankPlacement::epGroupIndex(int rank) const { return dpGroupIndex(rank) * layout_.dp + of(rank).dp / layout_.ep; }
int RankPlacement::expertDpGroupIndex(int rank) const {
  return dpGroupIndex(rank) * layout_.ep + of(rank).dp % layout_.ep;
}

// Groups are numbered by the other coordinates.
int RankPlacement::tpGroupIndex(int rank) const {
  LayoutCoordinates c = of(rank);
  return c.dp + layout_.dp * (c.pp + layout_.pp * c.cp);
}

int RankPlacement::cpGroupIndex(int rank) const {
  LayoutCoordinates c = of(rank);
  return c.tp + layout_.tp * (c.dp + layout_.dp * c.pp);
}

int RankPlacement::dpGroupIndex(int rank) const {
  LayoutCoordinates c = of(rank);
  return c.tp + layout_.tp * (c.pp + layout_.pp * c.cp);
}

int RankPlacement::gradientGroupIndex(int rank) const {
  LayoutCoordinates c = of(rank);
  return c.tp + layout_.tp * c.pp;
}

} // namespace collsim
