#include "sim/nccl/nccl_env.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "sim/config/config_node.h"
#include "sim/core/printable.h"
#include "sim/core/text_list.h"
#include "sim/core/units.h"
#include "sim/nccl/nccl_algorithms.h"

namespace collsim {
namespace {

[[noreturn]] void bad(const EnvSetting& s, const std::string& why) {
  throw ConfigError(s.origin + ": " + s.name + "=" + s.value + ": " + why);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

// NCCL_PROTO: LL, LL128, Simple (any case), a list, or ^list for all but.
std::string protocolOverride(const EnvSetting& s) {
  static const std::map<std::string, std::string> names = {{"ll", "LL"}, {"ll128", "LL128"}, {"simple", "Simple"}};
  bool excluded = false;
  std::vector<std::string> listed;
  for (const auto& n : splitExcludableList(s.value, excluded)) {
    auto it = names.find(lower(n));
    if (it == names.end()) bad(s, "'" + n + "' is not LL, LL128 or Simple");
    listed.push_back(it->second);
  }
  return (excluded ? "^" : "") + joinList(listed);
}

// NCCL_ALGO: Ring, Tree, NVLS, NVLSTree (any case), a list, or ^list for
// all but; each as NCCL runs it on the topology (nccl_algorithms.h): one it
// turns off here is left out with its reason in `off`.
std::vector<std::string> algorithms(const EnvSetting& s, const NcclTopology& t, std::vector<std::string>& unmodelled,
                                    std::vector<std::string>& off) {
  const std::vector<NcclAlgorithm> all = ncclAllReduceAlgorithms(t);
  const std::vector<std::string> known = {"collnetdirect", "collnetchain", "pat"};
  bool excluded = false;
  std::vector<std::string> listed;
  for (const auto& n : splitExcludableList(s.value, excluded)) {
    std::string key = lower(n);
    bool isModelled = std::any_of(all.begin(), all.end(), [&](const NcclAlgorithm& a) { return lower(a.name) == key; });
    if (!isModelled && std::find(known.begin(), known.end(), key) == known.end())
      bad(s, "'" + n + "' is not an NCCL algorithm (Ring, Tree, NVLS, NVLSTree, CollNetDirect, CollNetChain, PAT)");
    if (!isModelled) unmodelled.push_back(n);
    listed.push_back(key);
  }
  std::vector<std::string> out;
  for (const NcclAlgorithm& a : all) {
    if ((std::find(listed.begin(), listed.end(), lower(a.name)) != listed.end()) == excluded) continue;
    if (a.collsim.empty()) off.push_back(a.name + " (" + a.off + ")");
    else out.push_back(a.collsim);
  }
  if (out.empty())
    bad(s, "leaves nothing NCCL runs here that collsim models" + (off.empty() ? "" : ": " + joinNames(off)) +
               " (NCCL 2.20 and later fail the call, 'no algorithm/protocol available'; 2.18 and 2.19 run Ring and Tree)");
  return out;
}

int channelCount(const EnvSetting& s) {
  std::size_t used = 0;
  int v = 0;
  try {
    v = std::stoi(s.value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != s.value.size() || v < 1 || v > 256) bad(s, "not a whole number 1..256");
  return v;
}

// A byte count written as NCCL takes it: plain decimal digits, positive.
Bytes wholeBytes(const EnvSetting& s) {
  bool digits = !s.value.empty() && s.value.size() <= 18 &&
                std::all_of(s.value.begin(), s.value.end(), [](unsigned char c) { return std::isdigit(c); });
  Bytes b = digits ? Bytes(std::stoull(s.value)) : 0;
  if (b == 0) bad(s, "not a whole number of bytes");
  return b;
}

} // namespace

NcclSettings interpretNcclSettings(const std::vector<EnvSetting>& settings, const NcclTopology& topology) {
  NcclSettings n;
  auto note = [&](const EnvSetting& s, const std::string& what) {
    n.notices.push_back(printable(s.origin + ": " + s.name + "=" + s.value + ": " + what, false)); // no raw escapes
  };
  for (const EnvSetting& s : settings) {
    if (s.name.rfind("NCCL_", 0) != 0) continue;
    if (s.name == "NCCL_PROTO") {
      std::string list = protocolOverride(s);
      n.overrides.push_back("library.protocol=" + list);
      note(s, "the library runs " + list + " (library.protocol)");
    } else if (s.name == "NCCL_ALGO") {
      std::vector<std::string> unmodelled, off;
      n.algorithms = algorithms(s, topology, unmodelled, off);
      note(s, "runs " + joinList(n.algorithms) + " (compare and calibrate rate its protocols with NCCL's tuning model, and take the fastest of several algorithms per size)" +
                  (off.empty() ? "" : "; NCCL turns off " + joinNames(off)) +
                  (unmodelled.empty() ? "" : "; not modelled, left out: " + joinList(unmodelled)));
    } else if (s.name == "NCCL_MAX_NCHANNELS") {
      n.overrides.push_back("library.channels=" + std::to_string(channelCount(s)));
      note(s, "at most " + s.value + " channels (library.channels)");
    } else if (s.name == "NCCL_MIN_NCHANNELS") {
      n.overrides.push_back("library.min_channels=" + std::to_string(channelCount(s)));
      note(s, "at least " + s.value + " channels (library.min_channels)");
    } else if (s.name == "NCCL_BUFFSIZE") {
      // Simple's buffer holds NCCL_STEPS = 8 steps; a ring chunk is 4 of them.
      Bytes buffer = wholeBytes(s);
      if (buffer % 8) bad(s, "not a multiple of 8 bytes");
      n.overrides.push_back("library.protocols.Simple.chunk=" + std::to_string(buffer / 2));
      note(s, "Simple moves chunks of " + formatBytes(buffer / 2) + " (half the buffer: 4 of its 8 steps)");
    } else if (s.name == "NCCL_NVLS_CHUNKSIZE") {
      Bytes chunk = wholeBytes(s);
      n.overrides.push_back("library.nvls_chunk=" + s.value);
      note(s, "in-network algorithms slice by " + formatBytes(chunk) + " a device (library.nvls_chunk)");
    } else if (s.name == "NCCL_NVLSTREE_MAX_CHUNKSIZE" && s.value == "-2") {
      note(s, "NCCL's default: the NVLS tree's chunk is at most 64 KiB from 4 nodes");
    } else if (s.name == "NCCL_NVLSTREE_MAX_CHUNKSIZE") {
      Bytes chunk = wholeBytes(s);
      n.overrides.push_back("library.nvls_tree_max_chunk=" + s.value);
      note(s, "the NVLS tree's chunk is at most " + formatBytes(chunk) +
                  " (library.nvls_tree_max_chunk; with library.chunk_ladder=true, NCCL's ladder, which is off by default)");
    } else {
      note(s, "no effect on simulated time");
    }
  }
  return n;
}

} // namespace collsim
