#include "sim/hccl/hccl_env.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "sim/run/resolve_algorithm.h"
#include "sim/config/config_node.h"
#include "sim/config/input_file.h"

extern char** environ;

namespace collsim {
namespace {

std::string trim(std::string s) {
  auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
  s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
  return s;
}

std::string unquote(std::string v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return v.substr(1, v.size() - 2);
  return v;
}

bool compare(long long a, const std::string& op, long long b) {
  if (op == "-lt") return a < b;
  if (op == "-le") return a <= b;
  if (op == "-gt") return a > b;
  if (op == "-ge") return a >= b;
  if (op == "-eq") return a == b;
  return a != b; // -ne
}

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
  std::string inner = cluster.hccsShape == "mesh" ? "mesh" : "ring";
  std::string outer = level1(s, spec.substr(semicolon + 8));
  if (cluster.servers <= 1) return outer == "pipeline" ? inner : outer; // one server: level 1 is the only level
  if (outer == "pipeline") return "hierpipe:" + inner + "+ring";
  if (outer == "pairwise") return "pairwise";
  return "hier:" + inner + "+" + outer;
}

// "export NAME=VALUE" (the value up to the first blank); false otherwise.
bool parseExport(const std::string& line, std::string& name, std::string& value) {
  std::istringstream in(line);
  std::string word, assignment;
  if (!(in >> word >> assignment) || word != "export") return false;
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = assignment.substr(0, eq);
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (!(std::isalpha(c) || c == '_' || (i > 0 && std::isdigit(c)))) return false;
  }
  value = assignment.substr(eq + 1);
  return true;
}

// "if [ "$WORLD_SIZE" -le 8 ]; then": the operator and the number.
bool parseIf(std::string line, std::string& op, long long& n) {
  for (std::size_t at = 0; (at = line.find(';', at)) != std::string::npos; at += 3) line.replace(at, 1, " ; ");
  std::istringstream in(line);
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  static const std::vector<std::string> vars = {"\"$WORLD_SIZE\"", "$WORLD_SIZE", "\"${WORLD_SIZE}\"", "${WORLD_SIZE}"};
  static const std::vector<std::string> ops = {"-lt", "-le", "-gt", "-ge", "-eq", "-ne"};
  if (t.size() != 8 || t[0] != "if" || t[1] != "[" || t[5] != "]" || t[6] != ";" || t[7] != "then") return false;
  if (std::find(vars.begin(), vars.end(), t[2]) == vars.end() || std::find(ops.begin(), ops.end(), t[3]) == ops.end())
    return false;
  if (t[4].empty() || !std::all_of(t[4].begin(), t[4].end(), [](unsigned char c) { return std::isdigit(c); })) return false;
  op = t[3];
  // Any count of devices fits in 18 digits; a longer number is beyond every world size.
  n = t[4].size() > 18 ? std::numeric_limits<long long>::max() : std::stoll(t[4]);
  return true;
}

struct AliasState {
  std::optional<int> select, intra, inter;
  bool pipeline = false;
};

} // namespace

std::vector<EnvSetting> readEnvFile(const std::string& file, int worldSize) {
  return readEnvText(readInputFile(file, "--env-file"), file, worldSize);
}

std::vector<EnvSetting> readEnvText(const std::string& text, const std::string& file, int worldSize) {
  std::istringstream in(text);
  std::vector<EnvSetting> out;
  std::vector<bool> active; // nested if blocks
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::string t = trim(line.substr(0, line.find(" #")));
    bool on = std::all_of(active.begin(), active.end(), [](bool b) { return b; });
    std::string op, name, value;
    long long limit = 0;
    if (parseIf(t, op, limit)) {
      active.push_back(compare(worldSize, op, limit));
    } else if (t == "fi") {
      if (active.empty()) throw ConfigError(file + ":" + std::to_string(n) + ": 'fi' without 'if'");
      active.pop_back();
    } else if (t.rfind("if ", 0) == 0) {
      throw ConfigError(file + ":" + std::to_string(n) + ": only if [ \"$WORLD_SIZE\" -op N ]; then ... fi is understood");
    } else if (on && parseExport(t, name, value)) {
      out.push_back({name, unquote(value), file + ":" + std::to_string(n)});
    }
  }
  if (!active.empty()) throw ConfigError(file + ": 'if' without 'fi'");
  return out;
}

std::vector<EnvSetting> readProcessEnv() {
  std::vector<EnvSetting> out;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (kv.rfind("HCCL_", 0) == 0 && eq != std::string::npos) out.push_back({kv.substr(0, eq), kv.substr(eq + 1), "environment"});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

HcclSettings interpretHcclSettings(const std::vector<EnvSetting>& settings, const Cluster& cluster) {
  HcclSettings h;
  AliasState alias;
  auto note = [&](const EnvSetting& s, const std::string& what) { h.notices.push_back(s.origin + ": " + s.name + "=" + s.value + ": " + what); };
  auto notReal = [&](const EnvSetting& s, const std::string& what, const std::string& real) {
    note(s, what + " (not a real HCCL setting" + (real.empty() ? "" : "; HCCL's is " + real) + ")");
  };
  const std::vector<std::string> noEffect = {"HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_RDMA_TC", "HCCL_RDMA_SL",
                                             "HCCL_RDMA_TIMEOUT", "HCCL_RDMA_RETRY_CNT", "HCCL_INTRA_PCIE_ENABLE",
                                             "HCCL_OP_EXPANSION_MODE", "HCCL_DETERMINISTIC", "HCCL_MULTI_QP_THRESHOLD"};
  for (const EnvSetting& s : settings) {
    const std::string& n = s.name;
    if (n == "HCCL_ALGO") {
      // Global "level0:NA;level1:X", or per operation "allreduce=level0:...;level1:X/allgather=...".
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
          std::string name = fromHcclAlgo(s, part.substr(eq + 1), cluster);
          if (ResolvedAlgorithm r = resolveAlgorithm(op, name, cluster); !r) bad(s, r.problem);
          h.algorithm[op] = name;
        } else {
          // Global: it applies to the operations that have it; the others keep their default.
          for (Collective op : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather, Collective::Broadcast}) {
            std::string name = fromHcclAlgo(s, part, cluster);
            if (ResolvedAlgorithm r = resolveAlgorithm(op, name, cluster)) h.algorithm[op] = name;
            else note(s, std::string("does not apply to ") + collectiveName(op) + ", which keeps its default (" + r.problem + ")");
          }
        }
        if (slash == std::string::npos) break;
        start = slash + 1;
      }
      std::string forced;
      for (const auto& [op, a] : h.algorithm) forced += std::string(forced.empty() ? "" : ", ") + collectiveName(op) + " " + a;
      if (!forced.empty()) note(s, "forces " + forced + " (automatic selection off)");
    } else if (n == "HCCL_BUFFSIZE") {
      h.bufferSize = Bytes(number(s, 1, 1 << 20)) << 20;
      note(s, "data larger than " + formatBytes(*h.bufferSize) + " runs in loops of that size");
    } else if (n == "HCCL_RDMA_QPS_PER_CONNECTION" || n == "HCCL_ROCE_QP_NUM") {
      h.queuePairs = int(number(s, 1, 256));
      std::string what = "a RoCE connection stripes its messages over " + std::to_string(*h.queuePairs) +
                         " queue pairs, each on its own ECMP path (roce.queue_pairs; packet level)";
      if (n == "HCCL_ROCE_QP_NUM") notReal(s, what, "HCCL_RDMA_QPS_PER_CONNECTION");
      else note(s, what);
    } else if (n == "HCCL_INTRA_ROCE_ENABLE") {
      h.intraServerRoce = number(s, 0, 1) == 1;
      note(s, std::string("traffic inside a server ") + (*h.intraServerRoce ? "may use the RoCE NICs" : "stays on HCCS"));
    } else if (std::find(noEffect.begin(), noEffect.end(), n) != noEffect.end()) {
      note(s, "a real HCCL setting with no effect on simulated time");
    } else if (n == "HCCL_COMM_ALGO_SELECT") {
      alias.select = int(number(s, 0, 3));
      notReal(s, "0 auto, 1 ring, 2 tree (RHD), 3 hierarchical", "HCCL_ALGO");
    } else if (n == "HCCL_INTRA_NODE_ALGO" || n == "HCCL_INTER_NODE_ALGO") {
      (n == "HCCL_INTRA_NODE_ALGO" ? alias.intra : alias.inter) = int(number(s, 1, 2));
      notReal(s, "1 ring, 2 tree (RHD) for the hierarchical algorithm", "HCCL_ALGO level0/level1");
    } else if (n == "HCCL_ALLREDUCE_PIPELINE") {
      alias.pipeline = number(s, 0, 1) == 1;
      h.bucketsInFlight = alias.pipeline ? 2 : 1;
      notReal(s,
              alias.pipeline ? "a hierarchical AllReduce runs pipelined (hierpipe); training studies keep two buckets "
                               "in flight (training.pipeline: 2)"
                             : "no pipelining (training.pipeline: 1)",
              "HCCL_ALGO level1:pipeline");
    } else if (n == "HCCL_ROCE_MTU") {
      // RoCE payload MTUs are 256..4096; an Ethernet MTU above that still carries 4096.
      long long value = number(s, 256, 9216), mtu = 256;
      while (mtu * 2 <= std::min(value, 4096LL)) mtu *= 2;
      h.mtu = std::uint32_t(mtu);
      notReal(s, "RoCE packets carry " + std::to_string(mtu) + " bytes of payload (roce.mtu)", "the NIC's MTU");
    } else if (n == "HCCL_ALLREDUCE_BUCKET_SIZE") {
      h.bucket = Bytes(number(s, 1, 1LL << 40));
      notReal(s, "training studies use a " + formatBytes(*h.bucket) +
                     " gradient bucket (training.bucket); the bucket size is a framework setting, PyTorch DDP's "
                     "bucket_cap_mb",
              "");
    } else if (n == "HCCL_COMM_OVERLAP") {
      h.overlap = number(s, 0, 1) == 1;
      notReal(s, std::string("training studies ") + (*h.overlap ? "overlap" : "do not overlap") +
                     " bucket AllReduces with backward (training.overlap)",
              "");
    } else if (n == "HCCL_INTER_NODE_DEVS") {
      if (number(s, 1, 1 << 20) != cluster.devicesPerServer)
        bad(s, "the cluster has " + std::to_string(cluster.devicesPerServer) + " devices per server");
      notReal(s, "matches the cluster's devices per server", "");
    } else if (n == "HCCL_GROUP_SPLIT") {
      if (s.value != "NODE") bad(s, "only NODE is understood");
      notReal(s, "hierarchical algorithms group devices by server", "");
    } else if (n == "HCCL_ROCE_BUF_SIZE" || n == "HCCL_OP_BASE_FUSION_MODE" || n == "HCCL_EXEC_MODE" ||
               n == "HCCL_TIMEOUT" || n.rfind("HCCL_HCCS_", 0) == 0) {
      notReal(s, "no effect on simulated time", n == "HCCL_TIMEOUT" ? "HCCL_EXEC_TIMEOUT" : "");
    } else if (n.rfind("HCCL_", 0) == 0) {
      note(s, "unknown HCCL setting, ignored");
    }
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
    h.notices.push_back("HCCL_COMM_ALGO_SELECT and friends: allreduce uses " + a);
  }
  return h;
}

} // namespace collsim
