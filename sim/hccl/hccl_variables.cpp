#include "sim/hccl/hccl_variables.h"

#include <algorithm>
#include <optional>

#include "sim/config/config_node.h"
#include "sim/core/printable.h"
#include "sim/run/resolve_algorithm.h"

namespace collsim {

// The article's selection variables act together, after all are read.
struct SelectionAliases {
  std::optional<int> select, intra, inter;
  bool pipeline = false;
};

struct HcclVariableUse {
  HcclSettings& h;
  SelectionAliases& alias;
  const Cluster& cluster;
  void note(const EnvSetting& s, const std::string& what) {
    h.notices.push_back({s.origin, s.name, s.value, what});
  }
};

namespace {

[[noreturn]] void bad(const EnvSetting& s, const std::string& why) {
  throw ConfigError(s.origin + ": " + s.name + "=" + s.value + ": " + why);
}

long long number(const EnvSetting& s, long long min, long long max) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(s.value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  bool digits = !s.value.empty() && std::all_of(s.value.begin(), s.value.end(), [](unsigned char c) { return std::isdigit(c); });
  if (digits && used == 0) bad(s, "out of range " + std::to_string(min) + ".." + std::to_string(max)); // overflowed
  if (used == 0 || used != s.value.size()) bad(s, "not a whole number");
  if (v < min || v > max) bad(s, "out of range " + std::to_string(min) + ".." + std::to_string(max));
  return v;
}

// HCCL's level-1 algorithm names -> collsim's.
std::string level1(const EnvSetting& s, const std::string& name) {
  static const std::map<std::string, std::string> names = {{"ring", "ring"}, {"H-D_R", "rhd"},   {"NHR", "nhr"},
                                                           {"NHR_V1", "nhr"}, {"NB", "nb"},     {"pairwise", "pairwise"},
                                                           {"pipeline", "pipeline"}};
  auto it = names.find(name);
  if (it == names.end()) bad(s, "level1 algorithm '" + name + "' is not one collsim has (ring, H-D_R, NHR, NHR_V1, NB, pipeline, pairwise)");
  return it->second;
}

// "level0:NA;level1:X" -> a collsim name for `cluster` (level 0 follows the
// hardware: the server's HCCS shape).
std::string fromHcclAlgo(const EnvSetting& s, const std::string& spec, const Cluster& cluster) {
  auto semicolon = spec.find(';');
  if (spec.rfind("level0:", 0) != 0 || semicolon == std::string::npos || spec.compare(semicolon + 1, 7, "level1:") != 0)
    bad(s, "expected level0:NA;level1:ALGO");
  if (spec.substr(7, semicolon - 7) != "NA") bad(s, "level 0 only accepts NA (HCCL chooses it by hardware)");
  std::string inner = cluster.hccsShape == HccsShape::Mesh ? "mesh" : "ring";
  std::string outer = level1(s, spec.substr(semicolon + 8));
  if (cluster.servers <= 1) return outer == "pipeline" ? inner : outer; // one server: level 1 is the only level
  if (outer == "pipeline") return "hierpipe:" + inner + "+ring";
  if (outer == "pairwise") return "pairwise";
  return "hier:" + inner + "+" + outer;
}

// HCCL_ALGO: global "level0:NA;level1:X", or per operation
// "allreduce=level0:...;level1:X/allgather=...".
std::string applyAlgo(const EnvSetting& s, HcclVariableUse& u) {
  std::string rest = s.value;
  bool perOp = rest.find('=') != std::string::npos;
  std::size_t start = 0;
  while (start <= rest.size()) {
    std::size_t slash = rest.find('/', start);
    std::string part = rest.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (perOp) {
      // Named for one operation: it must be able to run it.
      auto eq = part.find('=');
      Collective op;
      if (eq == std::string::npos || !parseCollective(part.substr(0, eq), op)) bad(s, "'" + part + "' is not op=level0:NA;level1:ALGO");
      std::string name = fromHcclAlgo(s, part.substr(eq + 1), u.cluster);
      if (ResolvedAlgorithm r = resolveAlgorithm(op, name, u.cluster); !r) bad(s, r.problem);
      u.h.algorithm[op] = name;
    } else {
      // Global: it applies to the operations that have it; the others keep their default.
      for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast}) {
        std::string name = fromHcclAlgo(s, part, u.cluster);
        if (ResolvedAlgorithm r = resolveAlgorithm(op, name, u.cluster)) u.h.algorithm[op] = name;
        else u.note(s, std::string("does not apply to ") + collectiveName(op) + ", which keeps its default (" + r.problem + ")");
      }
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string forced;
  for (const auto& [op, a] : u.h.algorithm) forced += std::string(forced.empty() ? "" : ", ") + collectiveName(op) + " " + a;
  return forced.empty() ? "" : "forces " + forced + " (automatic selection off)";
}

std::string applyBuffSize(const EnvSetting& s, HcclVariableUse& u) {
  u.h.bufferSize = Bytes(number(s, 1, 1 << 20)) << 20;
  return "data larger than " + formatBytes(*u.h.bufferSize) + " runs in loops of that size";
}

std::string applyQueuePairs(const EnvSetting& s, HcclVariableUse& u) {
  u.h.queuePairs = int(number(s, 1, 256));
  return "a RoCE connection stripes its messages over " + std::to_string(*u.h.queuePairs) +
         " queue pairs, each on its own ECMP path (roce.queue_pairs; packet level)";
}

std::string applyIntraRoce(const EnvSetting& s, HcclVariableUse& u) {
  u.h.intraServerRoce = number(s, 0, 1) == 1;
  return std::string("traffic inside a server ") + (*u.h.intraServerRoce ? "may use the RoCE NICs" : "stays on HCCS");
}

std::string applyAlgoSelect(const EnvSetting& s, HcclVariableUse& u) {
  u.alias.select = int(number(s, 0, 3));
  return "0 auto, 1 ring, 2 tree (RHD), 3 hierarchical";
}

std::string applyLevelAlgo(const EnvSetting& s, HcclVariableUse& u) {
  (s.name == "HCCL_INTRA_NODE_ALGO" ? u.alias.intra : u.alias.inter) = int(number(s, 1, 2));
  return "1 ring, 2 tree (RHD) for the hierarchical algorithm";
}

std::string applyPipeline(const EnvSetting& s, HcclVariableUse& u) {
  u.alias.pipeline = number(s, 0, 1) == 1;
  u.h.bucketsInFlight = u.alias.pipeline ? 2 : 1;
  return u.alias.pipeline ? "a hierarchical AllReduce runs pipelined (hierpipe); training studies keep two buckets "
                            "in flight (training.pipeline: 2)"
                          : "no pipelining (training.pipeline: 1)";
}

std::string applyMtu(const EnvSetting& s, HcclVariableUse& u) {
  // RoCE payload MTUs are 256..4096; an Ethernet MTU above that still carries 4096.
  long long value = number(s, 256, 9216), mtu = 256;
  while (mtu * 2 <= std::min(value, 4096LL)) mtu *= 2;
  u.h.mtu = std::uint32_t(mtu);
  return "RoCE packets carry " + std::to_string(mtu) + " bytes of payload (roce.mtu)";
}

std::string applyBucket(const EnvSetting& s, HcclVariableUse& u) {
  u.h.bucket = Bytes(number(s, 1, 1LL << 40));
  return "training studies use a " + formatBytes(*u.h.bucket) +
         " gradient bucket (training.bucket); the bucket size is a framework setting, PyTorch DDP's bucket_cap_mb";
}

std::string applyOverlap(const EnvSetting& s, HcclVariableUse& u) {
  u.h.overlap = number(s, 0, 1) == 1;
  return std::string("training studies ") + (*u.h.overlap ? "overlap" : "do not overlap") +
         " bucket AllReduces with backward (training.overlap)";
}

std::string applyInterNodeDevs(const EnvSetting& s, HcclVariableUse& u) {
  if (number(s, 1, 1 << 20) != u.cluster.devicesPerServer)
    bad(s, "the cluster has " + std::to_string(u.cluster.devicesPerServer) + " devices per server");
  return "matches the cluster's devices per server";
}

std::string applyGroupSplit(const EnvSetting& s, HcclVariableUse&) {
  if (s.value != "NODE") bad(s, "only NODE is understood");
  return "hierarchical algorithms group devices by server";
}

} // namespace

const std::vector<HcclVariable>& hcclVariables() {
  static const std::vector<HcclVariable> rows = {
      {"HCCL_ALGO", true, "", "forces an algorithm per operation (level1 -> ring, rhd, nhr, nb, pairwise, hierpipe)", applyAlgo},
      {"HCCL_BUFFSIZE", true, "", "MB; larger data runs in loops of that size (hccl.buffer_size)", applyBuffSize},
      {"HCCL_RDMA_QPS_PER_CONNECTION", true, "", "queue pairs per RoCE connection (roce.queue_pairs; packet level)",
       applyQueuePairs},
      {"HCCL_INTRA_ROCE_ENABLE", true, "", "1: traffic inside a server may use the RoCE NICs", applyIntraRoce},
      {"HCCL_CONNECT_TIMEOUT", true, "", "no effect on simulated time", nullptr},
      {"HCCL_EXEC_TIMEOUT", true, "", "no effect on simulated time", nullptr},
      {"HCCL_RDMA_TC", true, "", "no effect on simulated time", nullptr},
      {"HCCL_RDMA_SL", true, "", "no effect on simulated time", nullptr},
      {"HCCL_RDMA_TIMEOUT", true, "", "no effect on simulated time (roce.retransmit_timeout is collsim's)", nullptr},
      {"HCCL_RDMA_RETRY_CNT", true, "", "no effect on simulated time", nullptr},
      {"HCCL_INTRA_PCIE_ENABLE", true, "", "no effect on simulated time", nullptr},
      {"HCCL_OP_EXPANSION_MODE", true, "", "no effect on simulated time", nullptr},
      {"HCCL_DETERMINISTIC", true, "", "no effect on simulated time", nullptr},
      {"HCCL_MULTI_QP_THRESHOLD", true, "", "no effect on simulated time", nullptr},
      {"HCCL_COMM_ALGO_SELECT", false, "HCCL_ALGO", "0 auto, 1 ring, 2 rhd, 3 hierarchical (allreduce)", applyAlgoSelect},
      {"HCCL_INTRA_NODE_ALGO", false, "HCCL_ALGO level0/level1", "1 ring, 2 rhd inside servers (with SELECT=3)",
       applyLevelAlgo},
      {"HCCL_INTER_NODE_ALGO", false, "HCCL_ALGO level0/level1", "1 ring, 2 rhd between servers (with SELECT=3)",
       applyLevelAlgo},
      {"HCCL_ALLREDUCE_PIPELINE", false, "HCCL_ALGO level1:pipeline",
       "1: hierpipe, and two buckets in flight in training studies", applyPipeline},
      {"HCCL_ROCE_MTU", false, "the NIC's MTU", "RoCE payload per packet (roce.mtu)", applyMtu},
      {"HCCL_ROCE_QP_NUM", false, "HCCL_RDMA_QPS_PER_CONNECTION", "queue pairs per RoCE connection", applyQueuePairs},
      {"HCCL_ALLREDUCE_BUCKET_SIZE", false, "", "bytes; training.bucket (a framework setting: DDP's bucket_cap_mb)",
       applyBucket},
      {"HCCL_COMM_OVERLAP", false, "", "1: training studies overlap bucket AllReduces with backward", applyOverlap},
      {"HCCL_INTER_NODE_DEVS", false, "", "checked against the cluster's devices per server", applyInterNodeDevs},
      {"HCCL_GROUP_SPLIT", false, "", "NODE: hierarchical algorithms group devices by server", applyGroupSplit},
      {"HCCL_ROCE_BUF_SIZE", false, "", "no effect on simulated time", nullptr},
      {"HCCL_OP_BASE_FUSION_MODE", false, "", "no effect on simulated time", nullptr},
      {"HCCL_EXEC_MODE", false, "", "no effect on simulated time", nullptr},
      {"HCCL_TIMEOUT", false, "HCCL_EXEC_TIMEOUT", "no effect on simulated time", nullptr},
      {"HCCL_HCCS_*", false, "", "no effect on simulated time", nullptr},
  };
  return rows;
}

const HcclVariable* findHcclVariable(const std::string& name) {
  for (const auto& v : hcclVariables()) {
    std::string n = v.name;
    if (n.back() == '*' ? name.rfind(n.substr(0, n.size() - 1), 0) == 0 : name == n) return &v;
  }
  return nullptr;
}

// Printable: an env file's escape sequences never reach the terminal.
std::string SettingNotice::text() const {
  if (origin.empty()) return printable(name + ": " + effect, false);
  return printable(origin + ": " + name + "=" + value + ": " + effect, false);
}

HcclSettings interpretHcclSettings(const std::vector<EnvSetting>& settings, const Cluster& cluster) {
  HcclSettings h;
  SelectionAliases alias;
  HcclVariableUse use{h, alias, cluster};
  for (const EnvSetting& s : settings) {
    const HcclVariable* v = findHcclVariable(s.name);
    if (!v) {
      if (s.name.rfind("HCCL_", 0) == 0) use.note(s, "unknown HCCL setting, ignored");
      continue;
    }
    std::string what = v->apply ? v->apply(s, use)
                                : v->real ? "a real HCCL setting with no effect on simulated time"
                                          : "no effect on simulated time";
    if (what.empty()) continue;
    if (!v->real)
      what += std::string(" (not a real HCCL setting") + (*v->realName ? "; HCCL's is " + std::string(v->realName) : "") + ")";
    use.note(s, what);
  }
  // The article's selection variables, applied after all were read.
  if (alias.select && *alias.select != 0 && !h.algorithm.count(Collective::AllReduce)) {
    std::string inner = alias.intra.value_or(1) == 2 ? "rhd" : "ring", outer = alias.inter.value_or(2) == 2 ? "rhd" : "ring";
    std::string a = *alias.select == 1 ? "ring" : *alias.select == 2 ? "rhd" : "hier:" + inner + "+" + outer;
    if (*alias.select == 3 && cluster.servers <= 1) a = inner; // one server: no second level
    if (alias.pipeline && a.rfind("hier:", 0) == 0) a = "hierpipe:" + a.substr(5);
    if (ResolvedAlgorithm r = resolveAlgorithm(Collective::AllReduce, a, cluster); !r)
      throw ConfigError("HCCL_COMM_ALGO_SELECT and friends: " + r.problem);
    h.algorithm[Collective::AllReduce] = a;
    h.notices.push_back({"", "HCCL_COMM_ALGO_SELECT and friends", "", "allreduce uses " + a});
  }
  return h;
}

} // namespace collsim
