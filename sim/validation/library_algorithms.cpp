#include "sim/validation/library_algorithms.h"

#include "sim/core/input_error.h"
#include "sim/nccl/nccl_algorithms.h"
#include "sim/selector/selector.h"

namespace collsim {

std::vector<std::string> ncclAlgorithms(Collective op, const Cluster& cluster) {
  if (op != Collective::AllReduce) return {"ring"};
  return ncclDefaultAlgorithms(ncclTopologyOf(cluster));
}

std::function<std::vector<std::string>(Bytes)> libraryAlgorithms(Collective op, const ClusterSetup& setup,
                                                                 const SelectorRules* rules) {
  const std::string& name = setup.library.name;
  if (name == "nccl") {
    std::vector<std::string> candidates = ncclAlgorithms(op, setup.cluster);
    return [candidates](Bytes) { return candidates; };
  }
  if (name == "hccl") {
    if (!rules) throw InputError("--algo library on an HCCL cluster needs selector rules");
    return [op, rules, cluster = setup.cluster](Bytes bytes) {
      return std::vector<std::string>{choose(*rules, op, bytes, cluster).algorithm};
    };
  }
  return [](Bytes) { return std::vector<std::string>{"ring"}; };
}

} // namespace collsim
