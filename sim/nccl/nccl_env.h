// NCCL environment settings (NCCL_PROTO, NCCL_ALGO, NCCL_MIN_NCHANNELS,
// NCCL_MAX_NCHANNELS, NCCL_BUFFSIZE, NCCL_NVLS_CHUNKSIZE), read with the HCCL ones
// (sim/hccl/hccl_env.h: an env file or the process environment), and what
// they mean for a cluster's collective library.
//
// They become cluster overrides (--set library.protocol=..., and so on), so
// the cluster loader checks them as it checks any key, and an algorithm
// list for NCCL_ALGO. Every NCCL_* variable gets a one-line notice; an
// unknown one is reported, a malformed value is an error naming it.
#pragma once

#include <string>
#include <vector>

#include "sim/hccl/hccl_env.h"
#include "sim/nccl/nccl_algorithms.h"

namespace collsim {

struct NcclSettings {
  std::vector<std::string> overrides;  // "library.protocol=LL,LL128", ...
  std::vector<std::string> algorithms; // NCCL_ALGO as collsim names (empty: unchanged)
  std::vector<std::string> notices;    // one per NCCL_* variable
  bool empty() const { return overrides.empty() && algorithms.empty() && notices.empty(); }
};

// Later settings override earlier ones. NCCL_ALGO's algorithms are what
// NCCL runs on `topology` (sim/nccl/nccl_algorithms.h). Throws ConfigError.
NcclSettings interpretNcclSettings(const std::vector<EnvSetting>& settings, const NcclTopology& topology);

} // namespace collsim
