#include "sim/validation/library_algorithms.h"

#include <algorithm>
#include <cstdio>

#include "sim/core/input_error.h"
#include "sim/core/text_list.h"
#include "sim/nccl/nccl_algorithms.h"
#include "sim/selector/selector.h"
#include "topologies/cluster_rates.h"

namespace collsim {

std::vector<std::string> ncclAlgorithms(Collective op, const Cluster& cluster) {
  if (op != Collective::AllReduce) return {"ring"};
  return ncclDefaultAlgorithms(ncclTopologyOf(cluster));
}

std::function<std::vector<std::string>(Bytes)> libraryAlgorithms(Collective op, const ClusterSetup& setup,
                                                                 const SelectorRules* rules) {
  const LibraryKind kind = setup.library.kind;
  if (kind == LibraryKind::Nccl) {
    std::vector<std::string> candidates = ncclAlgorithms(op, setup.cluster);
    return [candidates](Bytes) { return candidates; };
  }
  if (kind == LibraryKind::Hccl) {
    if (!rules) throw InputError("--algo library on an HCCL cluster needs selector rules");
    return [op, rules, cluster = setup.cluster](Bytes bytes) {
      return std::vector<std::string>{choose(*rules, op, bytes, cluster).algorithm};
    };
  }
  return [](Bytes) { return std::vector<std::string>{"ring"}; };
}

namespace {

// NCCL's compute capability of a device preset's GPU (by its name's
// family); 0 when the name is none NCCL's model knows.
int computeCapabilityOf(const std::string& device) {
  auto startsWith = [&](std::initializer_list<const char*> prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(), [&](const char* p) { return device.rfind(p, 0) == 0; });
  };
  if (startsWith({"v100"})) return 70;
  if (startsWith({"a100", "a800", "a30", "a10"})) return 80;
  if (startsWith({"h100", "h800", "h200", "h20", "gh200"})) return 90;
  return 0;
}

std::string oneDecimal(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

NcclColl ncclCollOf(Collective op) {
  switch (op) {
  case Collective::AllReduce: return NcclColl::AllReduce;
  case Collective::ReduceScatter: return NcclColl::ReduceScatter;
  case Collective::AllGather: return NcclColl::AllGather;
  case Collective::Broadcast: return NcclColl::Broadcast;
  case Collective::Reduce: return NcclColl::Reduce;
  default: return NcclColl::AllGather; // AllToAll: a ring of ranks - 1 steps
  }
}

} // namespace

NcclTuningInput ncclTuningInputOf(const ClusterSetup& setup, int channelsAsked) {
  const Cluster& c = setup.cluster;
  NcclTuningInput in;
  in.minor = setup.library.version;
  in.nodes = c.servers;
  in.ranks = c.ranks();
  int cc = computeCapabilityOf(c.device.name);
  in.computeCapability = cc > 0 ? cc : 80;
  const double inside = double(deviceScaleUpRate(c, 0)) / 1e9;
  // A server's NICs' ports into the fabric: a channel's ring or tree
  // leaves a node once, through one NIC, so the channels share them all.
  const double outside = double(serverScaleOutRate(c, 0)) / 1e9;
  const int channels = std::max(1, channelsAsked > 0 ? channelsAsked : setup.library.channels);
  const double perChannel = (c.servers > 1 && outside > 0 ? std::min(inside, outside) : inside) / channels;
  in.ring = in.tree = {channels, perChannel, perChannel};
  // NCCL's search then raises a tree's rate inside the nodes to twice its
  // rate across them, as far as the links inside allow (src/graph/search.cc,
  // "increase bwIntra for trees (2 nodes or collnet)", 2.8 on), and the
  // model rates a tree on two nodes by that rate.
  if (c.servers > 1 && outside > 0) in.tree.bwIntra = std::min(inside, 2 * outside) / channels;
  in.nvls = {channels, inside / channels, c.servers > 1 && outside > 0 ? outside / channels : inside / channels};
  return in;
}

NcclPicker::NcclPicker(Collective op, const ClusterSetup& setup, int channels)
    : library_(setup.library), input_(ncclTuningInputOf(setup, channels)), tuning_(input_, ncclCollOf(op)) {
  if (op == Collective::AllReduce) algorithms_ = ncclAllReduceAlgorithms(ncclTopologyOf(setup.cluster));
  else algorithms_ = {{"Ring", "ring", ""}};
}

std::optional<NcclAlgo> NcclPicker::ncclAlgoOf(const std::string& collsimName) const {
  for (const NcclAlgorithm& a : algorithms_)
    if (!a.collsim.empty() && a.collsim == collsimName)
      for (NcclAlgo x : {NcclAlgo::Tree, NcclAlgo::Ring, NcclAlgo::Nvls, NcclAlgo::NvlsTree})
        if (a.name == ncclAlgoName(x)) return x;
  return std::nullopt;
}

bool NcclPicker::allowed(NcclAlgo, Protocol p, Bytes bytes) const {
  for (const ProtocolModel* q : library_.candidatesFor(bytes))
    if (q->kind == p) return true;
  return false;
}

NcclPicker::Pick NcclPicker::pick(const std::vector<std::string>& algorithms, Bytes bytes) const {
  std::vector<NcclAlgo> asked;
  for (const std::string& name : algorithms)
    if (auto a = ncclAlgoOf(name)) asked.push_back(*a);
  auto chosen = tuning_.pick(bytes, [&](NcclAlgo a, Protocol p) {
    return std::find(asked.begin(), asked.end(), a) != asked.end() && allowed(a, p, bytes);
  });
  if (!chosen) return {};
  for (const std::string& name : algorithms)
    if (ncclAlgoOf(name) == chosen->first) return {name, chosen->second};
  return {};
}

std::optional<Protocol> NcclPicker::protocolFor(const std::string& algorithm, Bytes bytes) const {
  std::optional<NcclAlgo> a = ncclAlgoOf(algorithm);
  if (!a) return std::nullopt;
  auto chosen = tuning_.pick(bytes, [&](NcclAlgo x, Protocol p) { return x == *a && allowed(x, p, bytes); });
  if (!chosen) return std::nullopt;
  return chosen->second;
}

std::string NcclPicker::rule() const {
  int cc = input_.computeCapability;
  std::string r = "NCCL " + tuning_.family() + "'s tuning model (src/graph/tuning.cc: latency + size / bandwidth) picks " +
                  "each size's algorithm and protocol, not the fastest simulated; rated for compute capability " +
                  std::to_string(cc / 10) + "." + std::to_string(cc % 10) + ", " + std::to_string(input_.nodes) +
                  " node(s), " + std::to_string(input_.ring.channels) + " channels of " +
                  oneDecimal(input_.ring.bwIntra) + " GB/s";
  if (input_.nodes == 2 && input_.tree.bwIntra > input_.ring.bwIntra)
    r += " (a tree's " + oneDecimal(input_.tree.bwIntra) + " inside the nodes: NCCL's search raises it on two nodes)";
  if (!tuning_.familyNote().empty()) r += " (" + tuning_.familyNote() + ")";
  if (!tuning_.ll128Enabled()) r += "; LL128 off (NCCL enables it only on NVLink, Volta to Hopper)";
  return r;
}

} // namespace collsim
