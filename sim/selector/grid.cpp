#include "sim/selector/grid.h"
#include "sim/core/closest_name.h"

#include <filesystem>

#include "sim/config/cluster_config.h"
#include "sim/core/fingerprint.h"
#include "sim/config/config_node.h"
#include "sim/config/input_file.h"

namespace collsim {

Grid loadGridFile(const std::string& file) {
  return loadGridText(readInputFile(file, "a selector grid"), file);
}

Grid loadGridText(const std::string& text, const std::string& file) {
  auto origins = std::make_shared<ConfigOrigins>(file);
  ConfigNode root(parseYamlMapping(text, file, "a selector grid"), origins);
  Fingerprint fingerprint;
  fingerprint.add(text);
  root.allowDeclared(InputKind::SelectorGrid, "");
  Grid g;
  g.name = root.has("name") ? root.at("name").text() : "grid";

  std::vector<Collective> ops;
  for (const ConfigNode& op : root.at("ops").items()) {
    Collective c;
    if (!parseCollective(op.text(), c)) op.fail(unknownName("collective", op.text(), collectiveNames()));
    ops.push_back(c);
  }
  std::vector<Bytes> sizes;
  for (const ConfigNode& s : root.at("sizes").items()) sizes.push_back(s.bytes());

  std::filesystem::path dir = std::filesystem::path(file).parent_path();
  for (const ConfigNode& entry : root.at("clusters").items()) {
    entry.allowDeclared(InputKind::SelectorGrid, "clusters[]");
    ConfigNode baseNode = entry.at("base");
    std::filesystem::path base = dir / baseNode.text();
    try {
      fingerprint.add(readInputFile(base.string(), "a cluster file"));
    } catch (const ConfigError& e) {
      baseNode.fail(e.what());
    }
    auto list = [&](const char* key) {
      std::vector<long long> v;
      if (auto n = entry.find(key))
        for (const ConfigNode& x : n->isSequence() ? n->items() : std::vector<ConfigNode>{*n}) v.push_back(x.integer(1, 1 << 20));
      return v;
    };
    std::vector<long long> servers = list("servers"), devices = list("devices");
    if (servers.empty()) servers.push_back(0); // 0: keep the file's
    if (devices.empty()) devices.push_back(0);
    for (long long s : servers) {
      for (long long d : devices) {
        std::vector<std::string> sets;
        if (s) sets.push_back("servers=" + std::to_string(s));
        if (d) sets.push_back("devices=" + std::to_string(d));
        ClusterSetup c = loadClusterFile(base.string(), sets);
        g.labels.push_back(c.cluster.name + " servers=" + std::to_string(c.cluster.servers) +
                           " devices=" + std::to_string(c.cluster.devicesPerServer));
        g.clusters.push_back(std::move(c));
      }
    }
  }
  for (int c = 0; c < int(g.clusters.size()); ++c)
    for (Collective op : ops)
      for (Bytes b : sizes) g.points.push_back({op, b, c});
  g.fingerprint = fingerprint.hex();
  return g;
}

} // namespace collsim
