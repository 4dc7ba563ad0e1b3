#include "sim/scenario/scenario.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/core/registry.h"
#include "sim/run/simulate.h"
#include "sim/scenario/cluster_config.h"
#include "sim/scenario/config_node.h"

namespace collsim {
namespace {

std::vector<Bytes> loadSizes(const ConfigNode& n) {
  if (n.isSequence()) {
    std::vector<Bytes> sizes;
    for (const ConfigNode& item : n.items()) sizes.push_back(item.bytes());
    if (sizes.empty()) n.fail("the size list is empty");
    return sizes;
  }
  if (n.isMap()) {
    n.allowOnly({"min", "max", "factor"});
    Bytes min = n.at("min").bytes(), max = n.at("max").bytes();
    double factor = n.has("factor") ? n.at("factor").number() : 2.0;
    if (min > max) n.fail("min is larger than max");
    if (factor <= 1.0) n.at("factor").fail("factor must be greater than 1");
    return geometricSizes(min, max, factor);
  }
  return {n.bytes()};
}

Scenario interpret(const ConfigNode& root) {
  root.allowOnly({"name", "description", "cluster", "op", "algo", "sizes", "dtype", "root", "simulation"});
  Scenario s;
  s.name = root.has("name") ? root.at("name").text() : "scenario";
  if (auto d = root.find("description")) s.description = d->text();

  ConfigNode cluster = root.at("cluster");
  if (!cluster.isMap()) cluster.fail("expected a cluster mapping or a path to a cluster file");
  s.cluster = loadCluster(cluster);

  ConfigNode op = root.at("op");
  if (!parseCollective(op.text(), s.op)) {
    std::string list;
    for (const auto& n : collectiveNames()) list += (list.empty() ? "" : ", ") + n;
    op.fail("unknown collective '" + op.text() + "' (expected one of: " + list + ")");
  }

  ConfigNode algo = root.at("algo");
  std::vector<ConfigNode> algos = algo.isSequence() ? algo.items() : std::vector<ConfigNode>{algo};
  if (algos.size() == 1 && algos[0].isScalar() && algos[0].text() == "all") {
    s.algorithms = algorithmNames(s.op);
    algos.clear();
  }
  for (const ConfigNode& a : algos) {
    std::string name = a.text();
    if (!findAlgorithm(s.op, name)) {
      std::string list;
      for (const auto& n : algorithmNames(s.op)) list += (list.empty() ? "" : ", ") + n;
      a.fail("no algorithm '" + name + "' for " + collectiveName(s.op) + " (available: " + list + ")");
    }
    s.algorithms.push_back(name);
  }
  if (s.algorithms.empty()) algo.fail("no algorithm given");
  for (const auto& name : s.algorithms)
    if (std::string why = findAlgorithm(s.op, name)->unsupported(layoutOf(s.cluster, s.op)); !why.empty())
      algo.fail(name + " cannot run on " + std::to_string(s.cluster.ranks()) + " ranks: " + why);

  s.sizes = loadSizes(root.at("sizes"));
  if (auto d = root.find("dtype"); d && !parseDataType(d->text(), s.dtype)) {
    std::string list;
    for (const auto& n : dataTypeNames()) list += (list.empty() ? "" : ", ") + n;
    d->fail("unknown dtype '" + d->text() + "' (expected one of: " + list + ")");
  }
  if (auto r = root.find("root")) s.root = int(r->integer(0, s.cluster.ranks() - 1));
  if (auto sim = root.find("simulation")) {
    sim->allowOnly({"segment", "verify"});
    if (auto seg = sim->find("segment")) {
      s.simulation.segment = seg->bytes();
      if (s.simulation.segment == 0) seg->fail("segment size must be positive");
    }
    if (auto v = sim->find("verify")) s.simulation.verify = v->boolean();
  }
  return s;
}

} // namespace

std::vector<Bytes> geometricSizes(Bytes min, Bytes max, double factor) {
  std::vector<Bytes> sizes;
  for (double v = double(min); v <= double(max) * (1 + 1e-12); v *= factor) {
    sizes.push_back(Bytes(v + 0.5));
    if (v == 0) break; // 0 * factor stays 0
  }
  return sizes;
}

Scenario loadScenarioText(const std::string& yaml, const std::string& label, const std::string& baseDir,
                          const std::vector<std::string>& overrides) {
  auto origins = std::make_shared<ConfigOrigins>(label);
  YAML::Node root = parseYaml(yaml, label);
  if (!root.IsMap()) ConfigNode(root, origins).fail("a scenario is a YAML mapping");
  // A cluster given by path is inlined so that --set can reach into it. A
  // --set cluster=FILE comes first and is relative to the current folder;
  // a path in the file is relative to the file.
  std::filesystem::path clusterBase = baseDir;
  for (const auto& o : overrides) {
    if (o.rfind("cluster=", 0) == 0) {
      applyOverride(root, o, *origins);
      clusterBase = std::filesystem::current_path();
    }
  }
  if (root["cluster"] && root["cluster"].IsScalar()) {
    std::filesystem::path p = root["cluster"].Scalar();
    if (p.is_relative()) p = clusterBase / p;
    if (!std::filesystem::exists(p))
      ConfigNode(root["cluster"], origins, "cluster").fail("cluster file '" + p.string() + "' does not exist");
    root["cluster"] = loadYamlFile(p.string());
    origins->setFile("cluster", p.string());
  }
  for (const auto& o : overrides)
    if (o.rfind("cluster=", 0) != 0) applyOverride(root, o, *origins);
  return interpret(ConfigNode(root, origins));
}

Scenario loadScenarioFile(const std::string& file, const std::vector<std::string>& overrides) {
  std::filesystem::path p(file);
  if (!std::filesystem::exists(p)) throw ConfigError(file + ": no such scenario file");
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return loadScenarioText(text.str(), file, p.parent_path().string(), overrides);
}

} // namespace collsim
