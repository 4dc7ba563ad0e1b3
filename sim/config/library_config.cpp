#include "sim/config/library_config.h"
#include "sim/core/closest_name.h"

#include <cstdio>
#include <vector>

#include "sim/core/units.h"

namespace collsim {
namespace {

// A bandwidth, or none (0).
Bandwidth bandwidthOrNone(const ConfigNode& n) {
  std::string t = n.text();
  return (t == "0" || t == "none") ? 0 : n.bandwidth();
}

void loadProtocol(const ConfigNode& n, ProtocolModel& p) {
  n.allowDeclared(InputKind::Scenario, "cluster.library.protocols.<protocol>");
  if (auto v = n.find("data_share")) {
    p.dataShare = v->number();
    if (!(p.dataShare > 0 && p.dataShare <= 1)) v->fail("the data share of a line is in (0, 1]");
  }
  if (auto v = n.find("base_latency")) p.baseLatency = v->time();
  if (auto v = n.find("hop_intra")) p.hopIntra = v->time();
  if (auto v = n.find("hop_network")) p.hopNetwork = v->time();
  if (auto v = n.find("step_overhead")) p.stepOverhead = v->time();
  if (auto v = n.find("channel_bandwidth")) p.channelBandwidth = bandwidthOrNone(*v);
  if (auto v = n.find("bus_bandwidth")) {
    // One figure for any number of servers, or [one, two, three or more].
    if (!v->isSequence()) p.busBandwidth.fill(bandwidthOrNone(*v));
    else if (std::vector<ConfigNode> items = v->items(); items.size() == 3)
      for (std::size_t i = 0; i < 3; ++i) p.busBandwidth[i] = bandwidthOrNone(items[i]);
    else v->fail("bus_bandwidth is one figure, or three: [one server, two, three or more]");
  }
  if (auto v = n.find("lane_efficiency")) {
    p.laneEfficiency = v->number();
    if (!(p.laneEfficiency >= 0 && p.laneEfficiency <= 1))
      v->fail("the lane efficiency is a share of the channel's links, in [0, 1] (0: none)");
  }
  if (auto v = n.find("chunk")) p.chunk = v->bytes();
  if (auto v = n.find("wave")) p.wave = v->bytes();
  if (auto v = n.find("channel_bytes")) p.channelBytes = v->bytes();
  if (auto v = n.find("channel_bytes_per_rank")) p.channelBytesPerRank = v->bytes();
  if (auto v = n.find("slots")) p.slots = int(v->integer(0, 1024));
  if (auto v = n.find("in_network")) p.inNetwork = v->boolean();
  if (auto v = n.find("max_bytes")) {
    std::string t = v->text();
    p.maxBytes = (t == "0" || t == "none") ? 0 : v->bytes();
  }
}

} // namespace

// "2.26" (or 2.26.6): the release whose tuning model applies, as 2.x's x.
int libraryVersion(const ConfigNode& v) {
  const std::string text = v.text();
  int major = 0, minor = 0, used = 0;
  if (std::sscanf(text.c_str(), "%d.%d%n", &major, &minor, &used) != 2 || major != 2 || minor < 0 || minor > 99 ||
      (text.size() > std::size_t(used) && text[std::size_t(used)] != '.'))
    v.fail("expected a 2.x release, as NCCL numbers them (2.8, 2.19, 2.26.6)");
  return minor;
}

LibraryModel loadLibrary(const std::optional<ConfigNode>& node) {
  LibraryModel m;
  if (!node) return m;
  if (!node->isMap()) {
    if (!libraryPreset(node->text(), m)) node->fail(unknownName("library", node->text(), libraryPresetNames()));
    return m;
  }
  node->allowDeclared(InputKind::Scenario, "cluster.library");
  ConfigNode name = node->at("name");
  if (!libraryPreset(name.text(), m)) name.fail(unknownName("library", name.text(), libraryPresetNames()));
  if (auto v = node->find("version")) m.version = libraryVersion(*v);
  if (auto v = node->find("launch")) m.launch = v->time();
  if (auto v = node->find("channels")) m.channels = int(v->integer(1, 256));
  if (auto v = node->find("min_channels")) m.minChannels = int(v->integer(1, 256));
  if (auto v = node->find("compute_units_per_channel")) m.computeUnitsPerChannel = int(v->integer(0, 64));
  if (auto v = node->find("nvls_chunk")) m.nvlsChunk = v->bytes();
  if (auto v = node->find("chunk_ladder")) m.chunkLadder = v->boolean();
  if (auto v = node->find("nvls_tree_max_chunk")) m.nvlsTreeMaxChunk = v->bytes();
  if (auto v = node->find("nvls_latency")) m.nvlsLatency = v->time();
  if (m.minChannels > m.channels) node->at("min_channels").fail("min_channels is above channels");
  auto names = [&](const char* first) {
    std::string listed = first;
    for (const auto& q : m.protocols) listed += std::string(listed.empty() ? "" : ", ") + q.name();
    return listed;
  };
  auto protocolOf = [&](const std::string& name) -> ProtocolModel* {
    const std::optional<Protocol> kind = protocolOfName(name);
    for (auto& q : m.protocols)
      if (kind == q.kind) return &q;
    return nullptr;
  };
  if (auto protocols = node->find("protocols")) {
    for (const auto& [key, value] : protocols->entries()) {
      ProtocolModel* p = protocolOf(key);
      if (!p)
        value.fail("library " + std::string(m.name()) + " has no protocol " + key +
                   (m.protocols.empty() ? "" : " (protocols: " + names("") + ")"));
      loadProtocol(value, *p);
    }
  }
  if (auto v = node->find("protocol")) {
    const std::string text = v->text();
    if (text != "auto") {
      bool excluded = false;
      std::string unknown;
      ProtocolSet listed{0};
      for (const auto& name : splitExcludableList(text, excluded)) {
        if (const ProtocolModel* p = protocolOf(name)) listed.add(p->kind);
        else unknown += (unknown.empty() ? "" : ", ") + (name.empty() ? std::string("''") : name);
      }
      if (!unknown.empty())
        v->fail("library " + std::string(m.name()) + " has no protocol " + unknown + " (protocols: " + names("auto") +
                "; a list: A,B; all but: ^A)");
      m.protocol = excluded ? ProtocolSet{}.without(listed) : listed;
    }
    if (m.candidates().empty()) v->fail("'" + text + "' leaves library " + std::string(m.name()) + " no protocol");
  }
  return m;
}

} // namespace collsim
