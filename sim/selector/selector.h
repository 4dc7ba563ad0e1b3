// Choosing an algorithm: the candidates for a cluster, what the rules pick,
// and what the simulation says each candidate costs.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/registry.h"
#include "sim/selector/rules.h"
#include "sim/config/cluster_config.h"
#include "sim/run/work_estimate.h"

namespace collsim {

// Every algorithm that can run `op` on `cluster`: the flat ones and, for
// several servers, the hierarchical pairs (ring or mesh inside; ring, rhd,
// nhr or nb between; pipelined too for allreduce).
std::vector<std::string> candidates(Collective op, const Cluster& cluster);
// The alpha-beta-gamma model of the closed-form fallback: the largest link
// latency (twice between servers), the slowest link, the device's reduction.
CostModel costModelOf(const Cluster& cluster);

SelectionContext contextOf(Collective op, Bytes bytes, const Cluster& cluster);

struct Choice {
  std::string algorithm;
  std::string rule;   // the rule that fired, or "fallback: closed-form"
  std::string source; // where the rule comes from
};

// The rules' pick; without a matching rule (or when the rule's algorithm
// cannot run here), the candidate of lowest closed-form cost, with alpha
// and beta from the cluster's slowest link.
Choice choose(const SelectorRules& rules, Collective op, Bytes bytes, const Cluster& cluster);

struct CandidateTime {
  std::string algorithm;
  double seconds;
};
// Simulates every candidate (float32, 1 MiB segments, fast model), fastest first.
std::vector<CandidateTime> simulateCandidates(Collective op, Bytes bytes, const ClusterSetup& cluster);
double simulateOne(Collective op, Bytes bytes, const ClusterSetup& cluster, const std::string& algorithm);
// The work of one simulateOne, with an estimator of its cluster (made once for many).
WorkEstimate estimateOne(const CollectiveEstimator& estimate, Collective op, Bytes bytes, const ClusterSetup& cluster,
                         const std::string& algorithm);
// The work simulateCandidates will do, known before it starts.
WorkEstimate estimateCandidates(Collective op, Bytes bytes, const ClusterSetup& cluster, const WorkLimits* stop = nullptr);

} // namespace collsim
