// Selector rules as data (configs/selector/*.yaml): an ordered list of rules;
// the first whose conditions all hold names the algorithm (hierarchical
// names give the algorithm per level). When none holds, the fallback picks
// the candidate with the lowest closed-form cost.
//
//   name: hccl-910b
//   rules:
//     - name: nhr-from-4-servers
//       source: "HCCL 910B chooser (hccl-facts.md)"   # or "guess"
//       when: {op: allreduce, servers: {min: 4}, hccs: ring}
//       algo: "hier:ring+nhr"
//   fallback: closed-form
//
// Conditions: op (one or a list), bytes, ranks, servers, devices (a number
// or {min, max}), servers_power_of_two (true/false), hccs (ring, mesh, 2x4,
// links), fabric (none, switch, leaf-spine, rail), slice_bytes (bytes per
// device of a server: bytes / devices; HCCL's pipeline threshold).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "algorithms/core/schedule.h"
#include "sim/core/units.h"
#include "topologies/cluster.h"

namespace collsim {

class ConfigNode;

// What a rule can look at.
struct SelectionContext {
  Collective op = Collective::AllReduce;
  Bytes bytes = 0;
  int ranks = 1;
  int servers = 1;
  int devices = 1;           // per server
  HccsShape hccs = HccsShape::Ring; // shape inside a server
  FabricKind fabric = FabricKind::None;
};

struct Range {
  double min = 0;
  double max = 1e300;
  bool contains(double v) const { return v >= min && v <= max; }
};

struct Rule {
  std::string name;
  std::string source;
  std::vector<Collective> ops; // empty: any
  std::optional<Range> bytes, ranks, servers, devices, sliceBytes;
  std::optional<bool> serversPowerOfTwo;
  std::vector<HccsShape> hccs;  // empty: any
  std::vector<FabricKind> fabric; // empty: any
  std::string algorithm;
  bool matches(const SelectionContext& c) const;
};

struct SelectorRules {
  std::string name;
  std::string description;
  // Rules written by `selector derive`: the grid they were derived on.
  std::string derivedFromGrid, derivedFromFingerprint;
  std::vector<Rule> rules;
  // The first rule that holds, or nothing (then the fallback decides).
  const Rule* firstMatch(const SelectionContext& c) const;
};

SelectorRules loadSelectorRules(const ConfigNode& node);
SelectorRules loadSelectorRulesFile(const std::string& file);
// The same from text (the built-in default rules); `label` names it in errors.
SelectorRules loadSelectorRulesText(const std::string& yaml, const std::string& label);

} // namespace collsim
