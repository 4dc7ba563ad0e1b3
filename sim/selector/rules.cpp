#include "sim/selector/rules.h"

#include <algorithm>
#include "sim/core/closest_name.h"

#include "algorithms/core/registry.h"
#include "sim/config/config_node.h"
#include "topologies/multi_server.h"
#include "topologies/server_shapes.h"

namespace collsim {

bool Rule::matches(const SelectionContext& c) const {
  auto in = [](const auto& set, auto v) {
    return set.empty() || std::find(set.begin(), set.end(), v) != set.end();
  };
  if (!ops.empty()) {
    bool any = false;
    for (Collective op : ops) any = any || op == c.op;
    if (!any) return false;
  }
  bool pow2 = c.servers > 0 && (c.servers & (c.servers - 1)) == 0;
  return (!bytes || bytes->contains(double(c.bytes))) && (!ranks || ranks->contains(c.ranks)) &&
         (!servers || servers->contains(c.servers)) && (!devices || devices->contains(c.devices)) &&
         (!sliceBytes || sliceBytes->contains(double(c.bytes) / c.devices)) &&
         (!serversPowerOfTwo || *serversPowerOfTwo == pow2) && in(hccs, c.hccs) && in(fabric, c.fabric);
}

const Rule* SelectorRules::firstMatch(const SelectionContext& c) const {
  for (const Rule& r : rules)
    if (r.matches(c)) return &r;
  return nullptr;
}

namespace {

// A number, or {min, max} (either may be left out); sizes take units.
Range loadRange(const ConfigNode& n, bool sizes) {
  auto value = [&](const ConfigNode& v) { return sizes ? double(v.bytes()) : double(v.integer(0, 1LL << 40)); };
  if (n.isScalar()) {
    double v = value(n);
    return {v, v};
  }
  n.allowDeclared(InputKind::SelectorRules, "rules[].when.<condition>");
  Range r;
  if (auto v = n.find("min")) r.min = value(*v);
  if (auto v = n.find("max")) r.max = value(*v);
  if (r.min > r.max) n.fail("min is larger than max");
  return r;
}

// One name or a list of them, each one of `allowed`, parsed by `parse`.
template <class Kind>
std::vector<Kind> loadChoices(const ConfigNode& n, std::initializer_list<const char*> allowed,
                              bool (*parse)(const std::string&, Kind&)) {
  std::vector<Kind> out;
  for (const ConfigNode& item : n.isSequence() ? n.items() : std::vector<ConfigNode>{n})
    parse(item.choice(allowed), out.emplace_back());
  return out;
}

Rule loadRule(const ConfigNode& n) {
  n.allowDeclared(InputKind::SelectorRules, "rules[]");
  Rule r;
  r.name = n.at("name").text();
  r.source = n.has("source") ? n.at("source").text() : "guess";
  r.algorithm = n.at("algo").text();
  if (auto when = n.find("when")) {
    when->allowDeclared(InputKind::SelectorRules, "rules[].when");
    if (auto op = when->find("op")) {
      for (const ConfigNode& item : op->isSequence() ? op->items() : std::vector<ConfigNode>{*op}) {
        Collective c;
        if (!parseCollective(item.text(), c)) item.fail(unknownName("collective", item.text(), collectiveNames()));
        r.ops.push_back(c);
      }
    }
    if (auto v = when->find("bytes")) r.bytes = loadRange(*v, true);
    if (auto v = when->find("slice_bytes")) r.sliceBytes = loadRange(*v, true);
    if (auto v = when->find("ranks")) r.ranks = loadRange(*v, false);
    if (auto v = when->find("servers")) r.servers = loadRange(*v, false);
    if (auto v = when->find("devices")) r.devices = loadRange(*v, false);
    if (auto v = when->find("servers_power_of_two")) r.serversPowerOfTwo = v->boolean();
    if (auto v = when->find("hccs")) r.hccs = loadChoices(*v, {"ring", "mesh", "2x4", "links"}, parseHccsShape);
    if (auto v = when->find("fabric")) r.fabric = loadChoices(*v, {"none", "switch", "leaf-spine", "rail"}, parseFabricKind);
  }
  // The name must exist for some operation the rule covers: a misspelt
  // hier:ring+nhrr would otherwise fall back to closed form in silence.
  std::vector<Collective> ops = r.ops;
  if (ops.empty())
    for (const auto& name : collectiveNames()) parseCollective(name, ops.emplace_back());
  bool known = false;
  for (Collective op : ops) known = known || findAlgorithm(op, r.algorithm).has_value();
  if (!known)
    n.at("algo").fail("no algorithm '" + r.algorithm + "' for the operations this rule covers (see collsim algorithms)");
  return r;
}

} // namespace

SelectorRules loadSelectorRules(const ConfigNode& node) {
  node.allowDeclared(InputKind::SelectorRules, "");
  SelectorRules s;
  s.name = node.has("name") ? node.at("name").text() : "rules";
  if (auto d = node.find("derived_from")) {
    d->allowDeclared(InputKind::SelectorRules, "derived_from");
    s.derivedFromGrid = d->at("grid").text();
    s.derivedFromFingerprint = d->at("fingerprint").text();
  }
  if (auto d = node.find("description")) s.description = d->text();
  if (auto f = node.find("fallback")) f->choice({"closed-form"});
  for (const ConfigNode& r : node.at("rules").items()) s.rules.push_back(loadRule(r));
  return s;
}

SelectorRules loadSelectorRulesFile(const std::string& file) {
  auto origins = std::make_shared<ConfigOrigins>(file);
  return loadSelectorRules(ConfigNode(loadYamlFile(file, "a selector rules file"), origins));
}

SelectorRules loadSelectorRulesText(const std::string& yaml, const std::string& label) {
  auto origins = std::make_shared<ConfigOrigins>(label);
  return loadSelectorRules(ConfigNode(parseYamlMapping(yaml, label, "a selector rules file"), origins));
}

} // namespace collsim
