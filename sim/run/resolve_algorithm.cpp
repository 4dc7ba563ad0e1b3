#include "sim/run/resolve_algorithm.h"
#include "sim/core/closest_name.h"

#include <algorithm>

#include "algorithms/hierarchical/hierarchical.h"
#include "sim/core/input_error.h"
#include "sim/run/simulate.h"

namespace collsim {

ResolvedAlgorithm resolveAlgorithm(Collective op, const std::string& name, const Cluster& cluster) {
  ResolvedAlgorithm r;
  auto entry = findAlgorithm(op, name);
  if (!entry) {
    std::string list;
    for (const auto& n : algorithmNames(op)) list += (list.empty() ? "" : ", ") + n;
    if (op == Collective::AllReduce || op == Collective::ReduceScatter || op == Collective::AllGather ||
        op == Collective::Broadcast)
      list += ", hier:A+B, hierpipe:A+B";
    r.problem = "no algorithm '" + name + "' for " + collectiveName(op) + didYouMean(name, algorithmNames(op)) +
                " (available: " + list + ")";
    return r;
  }
  // In-network algorithms (alone or as a hierarchy's part) need a switch
  // that reduces: in the servers (nvls) or between them (sharp).
  auto reducing = [&](bool fabric) {
    return std::any_of(cluster.nodes.begin(), cluster.nodes.end(),
                       [fabric](const ClusterNode& n) { return n.reduces && (n.server < 0) == fabric; });
  };
  if (entry->needsReducingSwitch && !reducing(false)) {
    r.problem = name + " needs a server switch that reduces and multicasts (hccs: {shape: switch, reduce: true}); " +
                cluster.name + " has none";
    return r;
  }
  // Flat, every rank's contribution goes to the one switch between it and
  // its peer: a server's for peers inside it, the fabric's for the others,
  // and neither switch sees the whole group it waits for.
  if (entry->needsReducingSwitch && !entry->needsReducingFabric && cluster.servers > 1 &&
      name.find(':') == std::string::npos) {
    r.problem = name + " reduces in a server's switch, among that server's devices; on " +
                std::to_string(cluster.servers) + " servers run it as a hierarchy's level inside the servers " +
                "(hier:" + name + "+ring, or hierpipe:" + name + "+tree as NCCL's NVLS tree)";
    return r;
  }
  if (entry->needsReducingFabric && !reducing(true)) {
    r.problem = name + " needs a fabric switch that reduces and multicasts (fabric: {type: switch, reduce: true}); " +
                cluster.name + " has none";
    return r;
  }
  if (std::string why = entry->unsupported(layoutOf(cluster, op)); !why.empty()) {
    r.problem = name + " cannot run " + collectiveName(op) + " on " + std::to_string(cluster.ranks()) + " ranks (" +
                std::to_string(cluster.servers) + " x " + std::to_string(cluster.devicesPerServer) + "): " + why;
    return r;
  }
  r.entry = std::move(entry);
  return r;
}

std::vector<std::string> algorithmsNamedBy(Collective op, const std::string& word, const Cluster& cluster) {
  if (word != "all" && word != "flat") return {};
  std::vector<std::string> names = algorithmNames(op);
  if (word == "all" && cluster.servers > 1)
    for (const std::string& name : hierarchyNames(op))
      if (resolveAlgorithm(op, name, cluster)) names.push_back(name);
  return names;
}

AlgorithmEntry requireAlgorithm(Collective op, const std::string& name, const Cluster& cluster,
                                const std::string& where) {
  ResolvedAlgorithm r = resolveAlgorithm(op, name, cluster);
  if (!r) throw InputError(where + ": " + r.problem);
  return *r.entry;
}

} // namespace collsim
