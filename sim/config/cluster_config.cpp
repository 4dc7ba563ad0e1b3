#include "sim/config/cluster_config.h"
#include "sim/core/closest_name.h"

#include <algorithm>
#include <cctype>

#include "sim/config/device_presets.h"
#include "sim/core/text_list.h"
#include "sim/config/library_config.h"
#include "sim/config/roce_config.h"
#include "sim/network/packet/pfc_budget.h"
#include "topologies/multi_server.h"

namespace collsim {
namespace {

// A device is a preset (device_presets.h: its peak rates, memory and what
// its kernels reach, each with its source), ascend-910 when the file names
// none, with any figure set beside the name. step_overhead defaults to 0:
// the per-hop latency is in the links already; HCCL's 13 us / 60 us
// per-step figures are selector model constants, not a measured device cost.
// Bounds on what is built at all (work_estimate.h bounds what is simulated).
constexpr long long kMaxDevices = 1 << 18;
constexpr long long kMaxMeshLinks = 1 << 22;
constexpr std::size_t kMaxTiers = 16;

LinkParams loadLink(const ConfigNode& n) {
  LinkParams l;
  l.bandwidth = n.at("bandwidth").bandwidth();
  l.latency = n.at("latency").time();
  if (auto e = n.find("efficiency")) {
    double v = e->number();
    if (!(v > 0 && v <= 1)) e->fail("efficiency is the share of the line rate that carries data, in (0, 1]");
    l.bandwidth = Bandwidth(double(l.bandwidth) * v);
  }
  return l;
}

// A reducing switch's rate as a share of its ports' (cluster.h).
double reduceEfficiency(const ConfigNode& n, bool reduces) {
  if (!reduces) n.fail("'reduce_efficiency' goes with reduce: true");
  double v = n.number();
  if (!(v > 0 && v <= 1)) n.fail("reduce_efficiency is a share of the ports' rate, in (0, 1]");
  return v;
}

// A share in (0, 1] of a device's peak.
double deviceShare(const ConfigNode& n) {
  double v = n.number();
  if (!(v > 0 && v <= 1)) n.fail("a share of the device's peak, in (0, 1]");
  return v;
}

// [forward, backward] shares of the peak.
std::pair<double, double> attentionShares(const ConfigNode& n) {
  auto shares = n.items();
  if (shares.size() != 2) n.fail("expected [forward, backward], shares of the device's peak, e.g. [0.65, 0.55]");
  return {deviceShare(shares[0]), deviceShare(shares[1])};
}

// A device's attention figures as the file sets them. `attention_efficiency`
// is what the device's fused attention reaches, whichever kernel a model
// names: it replaces every kernel's figures (a key the user sets wins over
// a preset's kernel). `attention_kernels` then sets named kernels one by
// one (a calibrated device file: the kernels its runs used); the device's
// own kernel by name is also what `attention: flash` runs.
void loadAttention(const ConfigNode& n, DeviceModel& d) {
  if (auto v = n.find("attention_efficiency")) {
    auto [forward, backward] = attentionShares(*v);
    d.attentionForward = forward, d.attentionBackward = backward;
    for (AttentionKernel& k : d.attentionKernels) k.forward = forward, k.backward = backward;
  }
  auto kernels = n.find("attention_kernels");
  if (!kernels) return;
  if (!kernels->isMap()) kernels->fail("expected kernels mapped to [forward, backward], e.g. {flash-2: [0.65, 0.55]}");
  for (const auto& entry : kernels->entries()) {
    const std::string& name = entry.first; // not a structured binding: clang 14's lambdas cannot capture one
    const ConfigNode& shares = entry.second;
    const std::vector<std::string>& known = attentionKernelNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
      shares.fail("no attention kernel '" + name + "' (kernels: " + joinNames(known) + ")");
    auto [forward, backward] = attentionShares(shares);
    auto it = std::find_if(d.attentionKernels.begin(), d.attentionKernels.end(),
                           [&](const AttentionKernel& k) { return k.name == name; });
    if (it == d.attentionKernels.end()) it = d.attentionKernels.insert(d.attentionKernels.end(), {name});
    it->forward = forward, it->backward = backward;
    if (name == d.attentionKernel) d.attentionForward = forward, d.attentionBackward = backward; // `attention: flash`
  }
}

} // namespace

DeviceModel loadDevice(const std::optional<ConfigNode>& n) {
  if (!n) return defaultDevice();
  if (n->isScalar())
    if (const DeviceModel* preset = findDevicePreset(n->text())) return *preset;
  if (!n->isMap()) {
    std::vector<std::string> known;
    for (const DeviceModel& p : devicePresets()) known.push_back(p.name);
    n->fail("expected a device mapping ({name: a100-sxm4-80gb, ...}), a device file, or a preset's name (" +
            joinNames(known) + ")");
  }
  n->allowDeclared(InputKind::Scenario, "cluster.device");
  DeviceModel d = defaultDevice();
  if (auto v = n->find("name")) {
    const DeviceModel* preset = findDevicePreset(v->text());
    if (!preset) v->fail(unknownName("device", v->text(), devicePresetNames()));
    d = *preset;
  }
  if (auto v = n->find("step_overhead")) d.stepOverhead = v->time();
  if (auto v = n->find("flops")) d.flops = v->flops();
  if (auto v = n->find("memory_bandwidth")) d.memoryBandwidth = v->bandwidth();
  if (auto v = n->find("memory")) d.memory = v->bytes();
  if (auto v = n->find("reduce_bandwidth")) {
    // 0 (or "none") turns the reduction cost off.
    std::string t = v->text();
    d.reduceBandwidth = (t == "0" || t == "none") ? 0 : v->bandwidth();
  }
  if (auto v = n->find("gemm_efficiency")) d.gemmEfficiency = deviceShare(*v);
  if (auto v = n->find("memory_efficiency")) d.memoryEfficiency = deviceShare(*v);
  if (auto v = n->find("compute_units")) d.computeUnits = int(v->integer(0, 1 << 16));
  if (auto v = n->find("tile")) { // [rows, columns] of a GEMM's output tile
    auto sides = v->items();
    if (sides.size() != 2) v->fail("a tile is [rows, columns], e.g. [256, 128]");
    d.tileRows = int(sides[0].integer(1, 4096)), d.tileColumns = int(sides[1].integer(1, 4096));
  }
  loadAttention(*n, d);
  if (auto v = n->find("layer_overhead")) {
    d.layerOverhead = v->time();
    if (d.layerOverhead > kPsPerSec) v->fail("a layer's overhead of more than 1 s is not a framework's");
  }
  if (auto v = n->find("calibration")) { // what `collsim calibrate` wrote: the runs behind the figures
    v->allowDeclared(InputKind::Scenario, "cluster.device.calibration");
    d.calibration.runs = int(v->at("runs").integer(1, 1 << 20));
    d.calibration.error = v->at("error").number();
    if (!(d.calibration.error >= 0 && d.calibration.error < 10))
      v->at("error").fail("the expected relative error of a step time, from 0 (e.g. 0.04)");
  }
  return d;
}

namespace {

// The links inside a server are `scale_up:`, the network between servers
// `scale_out:`; files written for Ascend call them `hccs:` and `roce:`, which
// stay as their aliases. A file gives each under one name.
struct LinkSection {
  const char* key;
  const char* alias;
  const char* defaultName; // in descriptions, when the section names none
  const char* aliasName;
};
constexpr LinkSection kScaleUp{"scale_up", "hccs", "scale-up", "HCCS"};
constexpr LinkSection kScaleOut{"scale_out", "roce", "scale-out", "RoCE"};

// The general form: `tiers:` lists every tier from the devices up. Tier 0
// is the servers' own (scale_up's keys), tier 1 the NICs' links and the
// switches that group the servers (scale_out's keys, shape and size), each
// tier above a layer of switches over groups of the one below.
std::optional<ConfigNode> tierList(const ConfigNode& node) {
  auto tiers = node.find("tiers");
  if (!tiers) return std::nullopt;
  for (const char* key : {"scale_up", "hccs", "scale_out", "roce", "fabric", "inter_group"})
    if (auto k = node.find(key))
      k->fail(std::string("'") + key + "' belongs to the two-tier spelling; this cluster lists its 'tiers' instead");
  if (!tiers->isSequence() || tiers->items().empty())
    tiers->fail("expected a list of tiers, the servers' own first, e.g. [{name: NVLink, shape: switch, bandwidth: "
                "450GB/s, latency: 1us}, {name: InfiniBand, shape: switch, bandwidth: 400Gbps, latency: 2us}]");
  if (tiers->items().size() > kMaxTiers)
    tiers->fail("lists " + std::to_string(tiers->items().size()) + " tiers; collsim builds at most " +
                std::to_string(kMaxTiers) + " (the deepest fabrics built have 4 or 5)");
  return tiers;
}

std::optional<ConfigNode> findSection(const ConfigNode& node, const LinkSection& s) {
  if (auto tiers = tierList(node)) {
    const std::size_t k = std::string_view(s.key) == kScaleUp.key ? 0 : 1;
    std::vector<ConfigNode> items = tiers->items();
    if (k < items.size()) return items[k];
    return std::nullopt;
  }
  auto named = node.find(s.key), aliased = node.find(s.alias);
  if (named && aliased)
    named->fail(std::string("give this section once: '") + s.key + "' or its alias '" + s.alias + "', not both");
  return named ? named : aliased;
}

ConfigNode section(const ConfigNode& node, const LinkSection& s) {
  if (auto found = findSection(node, s)) return *found;
  node.fail(std::string("missing required key '") + s.key + "' (or its alias '" + s.alias + "')");
}

// What descriptions call the links: the section's `name:`, or by the key used.
std::string linkName(const ConfigNode& node, const ConfigNode& linkSection, const LinkSection& s) {
  if (auto name = linkSection.find("name")) return name->text();
  return node.find(s.key) || node.has("tiers") ? s.defaultName : s.aliasName;
}

ServerParams loadServer(const ConfigNode& node) {
  ServerParams p;
  p.name = node.has("name") ? node.at("name").text() : "cluster";
  p.devices = int(node.at("devices").integer(1, 1 << 20));
  p.device = loadDevice(node.find("device"));

  ConfigNode hccs = section(node, kScaleUp);
  if (node.has("tiers")) hccs.allowDeclared(InputKind::Scenario, "cluster.tiers[]", "scale-up");
  else hccs.allowDeclared(InputKind::Scenario, "cluster.scale_up");
  p.linkName = linkName(node, hccs, kScaleUp);
  ConfigNode shape = hccs.at("shape");
  if (!parseHccsShape(shape.choice({"ring", "mesh", "2x4", "links", "switch"}), p.shape)) shape.fail("unknown shape");
  if (p.devices > 1 || hccs.has("bandwidth")) p.hccs = loadLink(hccs);

  if (p.shape == HccsShape::Custom) {
    for (const ConfigNode& link : hccs.at("links").items()) {
      auto ends = link.items();
      if (ends.size() != 2) link.fail("a link is a pair of device indices, e.g. [0, 1]");
      p.customLinks.emplace_back(int(ends[0].integer(0, p.devices - 1)), int(ends[1].integer(0, p.devices - 1)));
    }
  } else if (auto links = hccs.find("links")) {
    links->fail("'links' only goes with shape: links");
  }
  if (auto reduce = hccs.find("reduce")) {
    if (p.shape != HccsShape::Switch) reduce->fail("'reduce' only goes with shape: switch (a switch that reduces)");
    p.switchReduces = reduce->boolean();
  }
  if (auto e = hccs.find("reduce_efficiency")) p.switchReduceEfficiency = reduceEfficiency(*e, p.switchReduces);

  if (auto ig = node.find("inter_group")) {
    if (p.shape != HccsShape::TwoGroupsOfFour) ig->fail("'inter_group' only goes with hccs shape 2x4");
    ig->allowDeclared(InputKind::Scenario, "cluster.inter_group");
    p.interGroup = loadLink(*ig);
  } else if (p.shape == HccsShape::TwoGroupsOfFour) {
    node.fail("hccs shape 2x4 needs an 'inter_group' link {bandwidth, latency}");
  }
  return p;
}

NicParams loadNic(const ConfigNode& node) {
  NicParams n;
  ConfigNode roce = section(node, kScaleOut);
  n.roce = loadLink(roce);
  if (node.has("tiers"))
    roce.allowDeclared(InputKind::Scenario, {{"cluster.tiers[]", "scale-out"}, {"cluster.tiers[]", "switch"}});
  else
    roce.allowDeclared(InputKind::Scenario, "cluster.scale_out");
  n.networkName = linkName(node, roce, kScaleOut);
  if (auto nic = node.find("nic")) {
    nic->allowDeclared(InputKind::Scenario, "cluster.nic");
    if (nic->at("per").choice({"device", "server"}) == "server") {
      n.placement = NicPlacement::PerServer;
      n.perServer = nic->has("count") ? int(nic->at("count").integer(1, 1 << 16)) : 1;
      ConfigNode pcie = nic->at("pcie");
      pcie.allowDeclared(InputKind::Scenario, "cluster.nic.pcie");
      n.pcie = loadLink(pcie);
      if (auto shared = pcie.find("shared"); shared && shared->boolean()) {
        n.pcieShared = true;
        // A device's own link carries the PCIe latency; the uplink adds
        // sharing, not distance.
        n.pcieUplink = {pcie.at("uplink").bandwidth(), 0};
      } else if (pcie.has("uplink")) {
        pcie.at("uplink").fail("'uplink' goes with shared: true");
      }
      if (auto map = nic->find("map")) {
        if (map->isSequence()) {
          n.map = NicMap::List;
          for (const ConfigNode& item : map->items()) {
            n.mapList.push_back(int(item.integer(0, 1 << 16)));
            if (n.mapList.back() >= n.perServer)
              item.fail("NIC " + std::to_string(n.mapList.back()) + " does not exist: the NICs are 0.." +
                        std::to_string(n.perServer - 1));
          }
          if (auto devices = node.find("devices"); devices && std::int64_t(n.mapList.size()) != devices->integer(1, 1 << 16))
            map->fail("lists " + std::to_string(n.mapList.size()) + " NIC(s); it needs one per device (" +
                      std::to_string(devices->integer(1, 1 << 16)) + ")");
        } else {
          n.map = map->choice({"interleave", "block"}) == "block" ? NicMap::Block : NicMap::Interleave;
        }
      }
    } else if (nic->has("count") || nic->has("pcie") || nic->has("map")) {
      nic->fail("'count', 'pcie' and 'map' only go with per: server");
    }
  }
  return n;
}

FabricParams loadFabric(const std::optional<ConfigNode>& node) {
  FabricParams f;
  if (!node) return f; // one switch
  node->allowDeclared(InputKind::Scenario, "cluster.fabric");
  ConfigNode type = node->at("type");
  parseFabricKind(type.choice({"switch", "leaf-spine", "rail"}), f.kind);
  if (auto reduce = node->find("reduce")) {
    // SHARP across leaves and spines is a tree of aggregating switches,
    // which collsim does not model.
    if (f.kind != FabricKind::Switch) reduce->fail("'reduce' only goes with type: switch (one switch that reduces)");
    f.reduces = reduce->boolean();
  }
  if (auto e = node->find("reduce_efficiency")) f.reduceEfficiency = reduceEfficiency(*e, f.reduces);
  if (f.kind == FabricKind::Switch) {
    for (const char* key : {"servers_per_leaf", "spines", "oversubscription", "uplink_latency"})
      if (auto k = node->find(key)) k->fail(std::string("'") + key + "' does not go with a single switch");
    return f;
  }
  if (f.kind == FabricKind::LeafSpine) f.serversPerLeaf = int(node->at("servers_per_leaf").integer(1, 1 << 20));
  else if (auto k = node->find("servers_per_leaf")) k->fail("a rail fabric has one leaf per NIC index");
  if (auto k = node->find("spines")) f.spines = int(k->integer(1, 1 << 16));
  if (auto k = node->find("oversubscription")) {
    f.oversubscription = k->number();
    if (!(f.oversubscription > 0)) k->fail("oversubscription must be positive (1 = non-blocking, 2 = 2:1)");
  }
  if (auto k = node->find("uplink_latency")) f.uplinkLatency = k->time();
  return f;
}

// Its switches' names: the tier's name in lower case, without spaces ("spine0").
std::string switchNameOf(const std::string& tierName) {
  std::string s;
  for (char c : tierName)
    if (c != ' ') s += char(std::tolower(static_cast<unsigned char>(c)));
  return s.empty() ? "switch" : s;
}

// A tier's groups: `size` groups of the tier below each (0: all of them).
int tierSize(const ConfigNode& tier) {
  if (auto v = tier.find("size")) return int(v->integer(1, 1 << 20));
  return 0;
}

// tiers[1..]: the switch tiers above the servers; tier 1's links are the NICs'.
std::vector<SwitchTier> loadSwitchTiers(const ConfigNode& list, const NicParams& nic) {
  std::vector<ConfigNode> items = list.items();
  std::vector<SwitchTier> tiers;
  for (std::size_t k = 1; k < items.size(); ++k) {
    const ConfigNode& n = items[k];
    if (k > 1) n.allowDeclared(InputKind::Scenario, "cluster.tiers[]", "switch");
    SwitchTier t;
    t.name = k == 1 ? nic.networkName : n.has("name") ? n.at("name").text() : "tier " + std::to_string(k);
    for (const SwitchTier& below : tiers)
      if (below.name == t.name) (n.has("name") ? n.at("name") : n).fail("tier " + std::to_string(k) + " is named '" + t.name + "' as a tier below it is; give each tier its own name");
    t.switchName = switchNameOf(t.name);
    if (auto shape = n.find("shape"))
      t.shape = (k == 1 ? shape->choice({"switch", "rail"}) : shape->choice({"switch"})) == "rail" ? SwitchShape::Rail : SwitchShape::Switch;
    t.size = tierSize(n);
    if (auto v = n.find("switches_per_group")) {
      if (k == 1) v->fail("a NIC port joins one switch: tier 1 has one switch per group (or one per NIC index, shape: rail)");
      t.switches = int(v->integer(1, 1 << 16));
    }
    if (k == 1) {
      t.link = nic.roce;
    } else {
      t.link.latency = n.at("latency").time();
      if (auto v = n.find("bandwidth")) t.link.bandwidth = v->bandwidth();
    }
    if (auto v = n.find("oversubscription")) {
      if (k == 1 || n.has("bandwidth")) v->fail("oversubscription sizes the links up from a tier below, when no bandwidth is given");
      t.oversubscription = v->number();
      if (!(t.oversubscription > 0)) v->fail("oversubscription must be positive (1 = non-blocking, 2 = 2:1)");
    }
    if (auto v = n.find("reduce")) {
      if (k > 1 || t.shape != SwitchShape::Switch || t.size != 0)
        v->fail("only tier 1 as one switch over every server reduces (SHARP over several tiers is a tree collsim does not model)");
      t.reduces = v->boolean();
    }
    if (auto e = n.find("reduce_efficiency")) t.reduceEfficiency = reduceEfficiency(*e, t.reduces);
    tiers.push_back(std::move(t));
  }
  return tiers;
}

Cluster buildMulti(const ConfigNode& node, const ServerParams& server, int servers) {
  auto tiers = tierList(node);
  if (!findSection(node, kScaleOut)) {
    if (tiers) tiers->fail("a cluster of several servers needs a tier above its servers' own (tier 1: the NICs' links and switches)");
    node.fail("a cluster of several servers needs a 'scale_out' (or 'roce') link {bandwidth, latency}");
  }
  ClusterParams c;
  c.name = server.name;
  c.servers = servers;
  c.server = server;
  c.nic = loadNic(node);
  if (tiers) c.tiers = loadSwitchTiers(*tiers, c.nic);
  else c.fabric = loadFabric(node.find("fabric"));
  if (auto v = node.find("intra_server_roce")) c.intraServerRoce = v->boolean();
  return buildCluster(c);
}

// Refused before anything is built: the graph of a 2^40-device cluster or
// of a full mesh of 4096 devices (8.4 M links) would exhaust memory first.
void checkClusterSize(const ConfigNode& node, const ServerParams& server, int servers) {
  double devices = double(server.devices) * servers;
  if (devices > double(kMaxDevices))
    node.fail(std::to_string(servers) + " servers x " + std::to_string(server.devices) + " devices is " +
              std::to_string(static_cast<long long>(devices)) + " devices; collsim builds clusters of at most " +
              std::to_string(kMaxDevices));
  if (server.shape == HccsShape::Mesh) {
    double links = double(server.devices) * (server.devices - 1) / 2 * servers;
    if (links > double(kMaxMeshLinks))
      section(node, kScaleUp).fail("a full mesh of " + std::to_string(server.devices) + " devices per server has " +
                           std::to_string(static_cast<long long>(links)) + " " + server.linkName + " links in all; collsim builds at most " +
                           std::to_string(kMaxMeshLinks) + " (use shape: ring, or fewer devices per server)");
  }
}

} // namespace

ClusterSetup loadCluster(const ConfigNode& node) {
  node.allowDeclared(InputKind::Scenario, "cluster");
  ServerParams server = loadServer(node);
  int servers = node.has("servers") ? int(node.at("servers").integer(1, 1 << 20)) : 1;
  checkClusterSize(node, server, servers);
  std::optional<ConfigNode> scaleOut = findSection(node, kScaleOut);
  bool multi = servers > 1 || scaleOut || node.has("nic") || node.has("fabric");
  RoceModel roce = loadRoceModel(scaleOut, findSection(node, kScaleUp));
  try {
    Cluster built = multi ? buildMulti(node, server, servers) : buildServer(server);
    for (const auto& sw : roce.switches)
      if (std::none_of(built.nodes.begin(), built.nodes.end(), [&](const ClusterNode& n) {
            return n.kind == NodeKind::Switch && sw.matches(n.name);
          }))
        scaleOut->at("switches").at(sw.match).fail("no switch named " + sw.match + " (or " + sw.match +
                                                          "0, " + sw.match + "1, ...) in this cluster");
    if (roce.pfc.enabled)
      if (auto why = pfcBufferShortfall(built, roce)) {
        const ConfigNode& r = *scaleOut;
        (r.find("pfc") ? r.at("pfc") : r).fail(*why);
      }
    return {std::move(built), std::move(roce), loadLibrary(node.find("library"))};
  } catch (const TopologyError& e) {
    node.fail(e.what());
  }
}

void libraryAsMapping(YAML::Node& root) {
  YAML::Node library = root["library"];
  if (!library || !library.IsScalar()) return;
  YAML::Node mapping;
  mapping["name"] = library.as<std::string>();
  root["library"] = mapping;
}

std::string asWrittenInCluster(const YAML::Node& cluster, const std::string& assignment, const std::string& prefix) {
  if (!cluster || !cluster.IsMap() || assignment.rfind(prefix, 0) != 0) return assignment;
  for (const LinkSection& s : {kScaleUp, kScaleOut})
    for (auto [typed, written] : {std::pair{s.alias, s.key}, std::pair{s.key, s.alias}}) {
      std::string head = prefix + typed;
      bool reaches = assignment.rfind(head, 0) == 0 && assignment.size() > head.size() &&
                     (assignment[head.size()] == '.' || assignment[head.size()] == '=');
      if (reaches && !cluster[typed] && cluster[written])
        return prefix + written + assignment.substr(head.size());
    }
  return assignment;
}

void applyClusterOverride(YAML::Node& root, const std::string& assignment, ConfigOrigins& origins) {
  if (assignment.rfind("library.", 0) == 0) libraryAsMapping(root);
  applyOverride(root, asWrittenInCluster(root, assignment, ""), origins, assignment);
}

void inlineDevice(YAML::Node& cluster, const std::string& path, const std::filesystem::path& base,
                  ConfigOrigins& origins, const std::shared_ptr<ConfigOrigins>& shared) {
  if (!cluster.IsMap() || !cluster["device"] || !cluster["device"].IsScalar()) return;
  if (findDevicePreset(cluster["device"].Scalar())) {
    YAML::Node named;
    named["name"] = cluster["device"].Scalar();
    cluster["device"] = named;
    return;
  }
  inlineYamlFile(cluster, "device", path, base, origins, shared, devicePresetNames());
}

// A --set as a scenario spells it (cluster.scale_up.bandwidth=...) or as
// the cluster file does (scale_up.bandwidth=...): every command takes both.
static std::string asClusterFileKey(const std::string& assignment) {
  return assignment.rfind("cluster.", 0) == 0 ? assignment.substr(8) : assignment;
}

ClusterSetup loadClusterFile(const std::string& file, const std::vector<std::string>& scenarioOrFileOverrides) {
  std::vector<std::string> overrides;
  for (const auto& o : scenarioOrFileOverrides) overrides.push_back(asClusterFileKey(o));
  auto origins = std::make_shared<ConfigOrigins>(file);
  YAML::Node root = loadYamlFile(file, "a cluster file");
  // A device file named on the command line is relative to the current
  // folder, one named in the file to the file's.
  auto namesDevice = [](const std::string& o) { return o.rfind("device=", 0) == 0; };
  std::filesystem::path deviceBase = std::filesystem::path(file).parent_path();
  for (const auto& o : overrides)
    if (namesDevice(o)) applyOverride(root, o, *origins), deviceBase = std::filesystem::current_path();
  inlineDevice(root, "device", deviceBase, *origins, origins);
  for (const auto& o : overrides)
    if (!namesDevice(o)) applyClusterOverride(root, o, *origins);
  ClusterSetup setup = loadCluster(ConfigNode(root, origins));
  YAML::Emitter emitter;
  emitter << root;
  setup.resolvedYaml = std::string(emitter.c_str()) + "\n";
  return setup;
}

} // namespace collsim
