// The one way a name becomes an algorithm that can run on a cluster.
//
// `--algo`, a scenario's `algo`, HCCL_ALGO, selector rules, training buckets
// and the MPI tools all go through it, so that a name accepted anywhere
// runs everywhere (an HCCL_ALGO choice that does not exist for broadcast
// once reached the simulator as an empty algorithm and crashed it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/registry.h"
#include "topologies/cluster.h"

namespace collsim {

struct ResolvedAlgorithm {
  std::optional<AlgorithmEntry> entry; // set when it can run
  std::string problem;                 // else why not, as a sentence fragment
  explicit operator bool() const { return entry.has_value(); }
};

// `name` for `op` on every rank of `cluster`: "no algorithm 'x' for
// broadcast (available: ring, dbtree)" or "mesh cannot run on 7 ranks: ...".
ResolvedAlgorithm resolveAlgorithm(Collective op, const std::string& name, const Cluster& cluster);

// What `all` and `flat` stand for in --algo and a scenario's algo: `flat`
// the registry's algorithms for `op`; `all` those and, on a cluster of
// several servers, every hierarchical composition (hier:A+B, hierpipe:A+B)
// that can run on it. Empty for any other word.
std::vector<std::string> algorithmsNamedBy(Collective op, const std::string& word, const Cluster& cluster);

// The same, throwing InputError with `where` ("--algo", "file:3:7: algo")
// in front of the problem.
AlgorithmEntry requireAlgorithm(Collective op, const std::string& name, const Cluster& cluster,
                                const std::string& where);

} // namespace collsim
