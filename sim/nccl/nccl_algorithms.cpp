#include "sim/nccl/nccl_algorithms.h"

#include "sim/core/text_list.h"

namespace collsim {

NcclTopology ncclTopologyOf(const Cluster& cluster) {
  NcclTopology t;
  t.servers = cluster.servers;
  for (const ClusterNode& n : cluster.nodes) {
    if (!n.reduces) continue;
    if (n.kind == NodeKind::ServerSwitch) t.serverSwitchReduces = true;
    if (n.kind == NodeKind::Switch) t.fabricReduces = true;
  }
  return t;
}

std::vector<NcclAlgorithm> ncclAllReduceAlgorithms(const NcclTopology& t) {
  const bool across = t.servers > 1;
  std::vector<NcclAlgorithm> out = {{"Ring", "ring", ""}, {"Tree", "tree", ""}};
  NcclAlgorithm nvls{"NVLS", across ? "hierpipe:nvls+sharp" : "nvls", ""};
  NcclAlgorithm nvlsTree{"NVLSTree", "hierpipe:nvls+tree", ""};
  if (!t.serverSwitchReduces) {
    nvls.off = nvlsTree.off = "no NVSwitch here reduces and multicasts (NVLink SHARP)";
  } else {
    if (across && !t.fabricReduces) nvls.off = "across servers NCCL runs NVLS only with CollNet, and no fabric switch here reduces";
    if (!across) nvlsTree.off = "NCCL runs NVLSTree across servers only";
  }
  for (NcclAlgorithm* a : {&nvls, &nvlsTree})
    if (!a->off.empty()) a->collsim.clear();
  out.push_back(nvls), out.push_back(nvlsTree);
  return out;
}

std::vector<std::string> ncclDefaultAlgorithms(const NcclTopology& t) {
  std::vector<std::string> out;
  for (const NcclAlgorithm& a : ncclAllReduceAlgorithms(t))
    if (!a.collsim.empty() && !(a.name == "Tree" && t.servers <= 1)) out.push_back(a.collsim);
  return out;
}

std::string ncclAlgorithmsNote(const NcclTopology& t) {
  std::string on = joinNames(ncclDefaultAlgorithms(t)), off;
  for (const NcclAlgorithm& a : ncclAllReduceAlgorithms(t)) {
    std::string why = a.off;
    if (a.name == "Tree" && t.servers <= 1) why = "inside one server collsim compares the ring";
    if (!why.empty()) off += (off.empty() ? "" : "; ") + a.name + ": " + why;
  }
  return "NCCL's AllReduce candidates on " + std::to_string(t.servers) +
         (t.servers == 1 ? " server" : " servers") + " (src/graph/tuning.cc, 2.18-2.28): " + on +
         (off.empty() ? "" : "; left out: " + off);
}

} // namespace collsim
