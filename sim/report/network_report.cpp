#include "sim/report/network_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/report/text_table.h"

namespace collsim {
namespace {

std::string usText(Time t) { return fixed(toMicroseconds(t), 2); }
std::string kb(Bytes b) { return fixed(double(b) / 1e3, 1); }

const LinkTypeMetrics* tierOf(const NetworkMetrics& m, LinkTier tier) {
  for (const auto& l : m.links)
    if (l.tier == tier) return &l;
  return nullptr;
}

LinkTier tierOfName(const std::string& key) {
  if (auto tier = tierOfKey(key)) return *tier;
  throw std::runtime_error("unknown link tier '" + key + "'");
}

std::string columnName(std::string name) {
  for (char& ch : name)
    if (ch == ' ') ch = '_';
  return name;
}

// A tier's columns are named as the rows' clusters name it ("RoCE_util",
// "NVLink_util"), or by its key where they differ or none used it.
std::string columnPrefix(const std::vector<LabelledMetrics>& rows, LinkTier tier) {
  std::string name;
  for (const auto& r : rows)
    if (const LinkTypeMetrics* l = tierOf(*r.metrics, tier)) {
      if (!name.empty() && name != l->name) return tierKey(tier);
      name = l->name;
    }
  if (name.empty()) return tierKey(tier);
  return columnName(name);
}

// The scale-out tiers above the first that any row's links used (spines, a
// core), by name: a column each.
std::vector<std::string> upperScaleOutTiers(const std::vector<LabelledMetrics>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows) {
    const LinkTypeMetrics* first = tierOf(*r.metrics, LinkTier::ScaleOut);
    for (const auto& l : r.metrics->links)
      if (l.tier == LinkTier::ScaleOut && &l != first && std::find(names.begin(), names.end(), l.name) == names.end())
        names.push_back(l.name);
  }
  return names;
}

} // namespace

nlohmann::ordered_json networkJson(const NetworkMetrics& m) {
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const auto& l : m.links)
    links.push_back({{"tier", tierKey(l.tier)},
                     {"name", l.name},
                     {"channels", l.channels},
                     {"mean_utilization", l.meanUtilization},
                     {"max_utilization", l.maxUtilization},
                     {"goodput_of_line_rate", l.goodputOfLineRate},
                     {"payload_bytes", l.payload},
                     {"wire_bytes", l.wire}});
  nlohmann::ordered_json busiest = nlohmann::ordered_json::array();
  for (const auto& b : m.busiest)
    busiest.push_back({{"link", b.name}, {"utilization", b.utilization}, {"payload_bytes", b.payload}});
  return {{"fidelity", m.fidelity},
          {"links", links},
          {"busiest_links", busiest},
          {"packets", m.packets},
          {"packet_hops", m.packetHops},
          {"queue_bytes", {{"p50", m.queueP50}, {"p99", m.queueP99}, {"max", m.queueMax}}},
          {"ecn_marks", m.ecnMarks},
          {"cnps", m.cnps},
          {"pfc_pause_frames", m.pauseFrames},
          {"pfc_pause_us", toMicroseconds(m.pauseTime)},
          {"drops", m.drops},
          {"retransmitted_packets", m.retransmittedPackets},
          {"timeouts", m.timeouts},
          {"messages", m.messages},
          {"message_latency_us",
           {{"p50", toMicroseconds(m.latencyP50)},
            {"p99", toMicroseconds(m.latencyP99)},
            {"p999", toMicroseconds(m.latencyP999)}}}};
}

NetworkMetrics networkFromJson(const nlohmann::json& j) {
  NetworkMetrics m;
  auto time = [](const nlohmann::json& us) { return Time(std::llround(us.get<double>() * double(kPsPerUs))); };
  m.fidelity = j.at("fidelity").get<std::string>();
  for (const auto& l : j.at("links"))
    m.links.push_back({tierOfName(l.at("tier").get<std::string>()), l.at("name").get<std::string>(), l.at("channels").get<int>(), l.at("mean_utilization").get<double>(),
                       l.at("max_utilization").get<double>(), l.at("goodput_of_line_rate").get<double>(),
                       l.at("payload_bytes").get<Bytes>(), l.at("wire_bytes").get<Bytes>()});
  for (const auto& b : j.at("busiest_links"))
    m.busiest.push_back({b.at("link").get<std::string>(), b.at("utilization").get<double>(),
                         b.at("payload_bytes").get<Bytes>()});
  m.packets = j.at("packets");
  m.packetHops = j.at("packet_hops");
  m.queueP50 = j.at("queue_bytes").at("p50");
  m.queueP99 = j.at("queue_bytes").at("p99");
  m.queueMax = j.at("queue_bytes").at("max");
  m.ecnMarks = j.at("ecn_marks");
  m.cnps = j.at("cnps");
  m.pauseFrames = j.at("pfc_pause_frames");
  m.pauseTime = time(j.at("pfc_pause_us"));
  m.drops = j.at("drops");
  m.retransmittedPackets = j.at("retransmitted_packets");
  m.timeouts = j.at("timeouts");
  m.messages = j.at("messages");
  m.latencyP50 = time(j.at("message_latency_us").at("p50"));
  m.latencyP99 = time(j.at("message_latency_us").at("p99"));
  m.latencyP999 = time(j.at("message_latency_us").at("p999"));
  return m;
}

std::string networkTable(const std::vector<std::string>& labelHeaders, const std::vector<LabelledMetrics>& rows,
                         bool markdown) {
  std::vector<std::string> h = labelHeaders;
  const std::string out = columnPrefix(rows, LinkTier::ScaleOut), up = columnPrefix(rows, LinkTier::ScaleUp);
  for (std::string c : {out + "_util", out + "_max", out + "_goodput", up + "_util"}) h.push_back(c);
  const std::vector<std::string> upper = upperScaleOutTiers(rows);
  for (const std::string& name : upper) h.push_back(columnName(name) + "_util");
  for (const char* c : {"queue_p50_KB", "queue_p99_KB", "queue_max_KB", "ecn", "cnp", "pause_us", "drops", "resent",
                        "timeouts", "lat_p50_us", "lat_p99_us", "lat_p999_us"})
    h.push_back(c);
  TextTable t(h);
  for (const auto& r : rows) {
    const NetworkMetrics& m = *r.metrics;
    const LinkTypeMetrics* roce = tierOf(m, LinkTier::ScaleOut);
    const LinkTypeMetrics* hccs = tierOf(m, LinkTier::ScaleUp);
    std::vector<std::string> row = r.labels;
    for (std::string c :
         {roce ? percent(roce->meanUtilization) : "-", roce ? percent(roce->maxUtilization) : "-",
          roce ? percent(roce->goodputOfLineRate) : "-", hccs ? percent(hccs->meanUtilization) : "-"})
      row.push_back(std::move(c));
    for (const std::string& name : upper) {
      auto l = std::find_if(m.links.begin(), m.links.end(), [&](const LinkTypeMetrics& x) {
        return x.tier == LinkTier::ScaleOut && x.name == name && &x != roce;
      });
      row.push_back(l == m.links.end() ? "-" : percent(l->meanUtilization));
    }
    for (std::string c : {kb(m.queueP50),
          kb(m.queueP99), kb(m.queueMax), std::to_string(m.ecnMarks), std::to_string(m.cnps), usText(m.pauseTime),
          std::to_string(m.drops), std::to_string(m.retransmittedPackets), std::to_string(m.timeouts),
          usText(m.latencyP50), usText(m.latencyP99), usText(m.latencyP999)})
      row.push_back(std::move(c));
    t.add(std::move(row));
  }
  std::string title = "network (utilization = busy / run time over the link directions used; goodput = payload / "
                      "line-rate bytes while busy; queues: switch egress, at each packet; latency per message)";
  return markdown ? "\n" + title + "\n\n" + t.markdown() : "\n# " + title + "\n" + t.text();
}

} // namespace collsim
