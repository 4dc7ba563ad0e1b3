#include "sim/config/roce_config.h"
#include "sim/core/closest_name.h"

namespace collsim {
namespace {

bool isWord(const ConfigNode& n, const char* word) { return n.isScalar() && n.text() == word; }

// A preset by name; `production`, the name before the NICs' shipped defaults
// replaced its mix of paper and NIC values, says where it went.
void applyPreset(const ConfigNode& name, RoceModel& m) {
  if (applyDcqcnPreset(name.text(), m)) return;
  if (name.text() == "production")
    name.fail("DCQCN preset 'production' is now 'connectx': the ConnectX firmware defaults (1 us alpha updates, "
              "4 us between cuts), not the paper's 55 us alpha period");
  name.fail(unknownName("DCQCN preset", name.text(), {"connectx", "paper", "off"}));
}

void loadDcqcn(const ConfigNode& n, RoceModel& m) {
  if (isWord(n, "off")) {
    m.dcqcn.enabled = false;
    return;
  }
  if (n.isScalar()) return applyPreset(n, m);
  n.allowDeclared(InputKind::Scenario, "cluster.scale_out.dcqcn");
  if (auto p = n.find("preset")) applyPreset(*p, m);
  DcqcnModel& d = m.dcqcn;
  auto fraction = [](const ConfigNode& v, const char* what) {
    double x = v.number();
    if (x <= 0 || x > 1) v.fail(std::string(what) + " is in (0, 1]");
    return x;
  };
  if (auto v = n.find("g")) d.g = fraction(*v, "g, a gain,");
  if (auto v = n.find("initial_alpha")) d.initialAlpha = fraction(*v, "initial_alpha");
  if (auto v = n.find("cnp_interval")) d.cnpInterval = v->time();
  if (auto v = n.find("alpha_period")) d.alphaPeriod = v->time();
  if (auto v = n.find("increase_period")) d.increasePeriod = v->time();
  if (auto v = n.find("decrease_period")) d.decreasePeriod = v->time();
  if (auto v = n.find("clamp_target")) d.clampTarget = v->boolean();
  if (auto v = n.find("clamp_after_timer")) d.clampAfterTimerIncrease = v->boolean();
  if (auto v = n.find("byte_counter")) d.byteCounter = v->bytes();
  if (auto v = n.find("fast_recovery")) d.fastRecoverySteps = int(v->integer(0, 1000));
  if (auto v = n.find("additive_increase")) d.additiveIncrease = v->bandwidth();
  if (auto v = n.find("hyper_increase")) d.hyperIncrease = v->bandwidth();
  if (auto v = n.find("min_rate")) d.minRate = v->bandwidth();
  if (d.alphaPeriod <= 0 || d.increasePeriod <= 0) n.fail("the DCQCN timers need positive periods");
  if (d.decreasePeriod < 0) n.fail("decrease_period is a time, 0 to cut at each CNP");
  m.dcqcnPreset = "custom";
  m.dcqcnPresetRate = 0;
}

void loadEcn(const ConfigNode& n, EcnModel& e) {
  if (isWord(n, "off")) {
    e.enabled = false;
    return;
  }
  n.allowDeclared(InputKind::Scenario, "cluster.scale_out.ecn");
  e.enabled = true;
  if (auto v = n.find("kmin")) e.kmin = v->bytes();
  if (auto v = n.find("kmax")) e.kmax = v->bytes();
  if (auto v = n.find("pmax")) {
    e.pmax = v->number();
    if (e.pmax < 0 || e.pmax > 1) v->fail("pmax is a probability");
  }
  if (e.kmin > e.kmax) n.fail("kmin is larger than kmax");
}

void loadPfc(const ConfigNode& n, PfcModel& p) {
  if (isWord(n, "off")) return void(p.enabled = false);
  if (isWord(n, "on")) return void(p.enabled = true);
  n.allowDeclared(InputKind::Scenario, "cluster.scale_out.pfc");
  p.enabled = true;
  if (auto v = n.find("xoff")) p.xoff = v->bytes();
  if (auto v = n.find("xon")) p.xon = v->bytes();
  if (p.xon > p.xoff) n.fail("xon must not be above xoff");
}

} // namespace

JitterModel loadJitter(const ConfigNode& n) {
  JitterModel j;
  if (isWord(n, "none")) return j;
  if (auto u = n.find("uniform")) {
    n.allowDeclared(InputKind::Scenario, "cluster.<link>.jitter", "uniform");
    auto ends = u->items();
    if (ends.size() != 2) u->fail("uniform takes [low, high]");
    j.kind = JitterModel::Kind::Uniform;
    j.low = ends[0].time();
    j.high = ends[1].time();
    if (j.low > j.high) u->fail("low is above high");
    return j;
  }
  n.allowDeclared(InputKind::Scenario, "cluster.<link>.jitter", "lognormal");
  j.kind = JitterModel::Kind::LognormalPareto;
  j.median = n.at("median").time();
  j.sigma = n.has("sigma") ? n.at("sigma").number() : 0.5;
  if (j.sigma < 0) n.at("sigma").fail("sigma cannot be negative");
  if (auto v = n.find("tail_fraction")) {
    j.tailFraction = v->number();
    if (j.tailFraction < 0 || j.tailFraction > 1) v->fail("tail_fraction is a probability");
    j.tailScale = n.at("tail_scale").time();
    if (auto s = n.find("tail_shape")) {
      j.tailShape = s->number();
      if (j.tailShape <= 0) s->fail("tail_shape must be positive");
    }
  }
  return j;
}

RoceModel loadRoceModel(const std::optional<ConfigNode>& roce, const std::optional<ConfigNode>& hccs) {
  RoceModel m = defaultRoceModel();
  if (hccs)
    if (auto j = hccs->find("jitter")) m.hccsJitter = loadJitter(*j);
  if (!roce) return m;
  if (auto v = roce->find("mtu")) {
    long long mtu = v->integer(256, 4096);
    if (mtu & (mtu - 1)) v->fail("a RoCE MTU is 256, 512, 1024, 2048 or 4096 bytes");
    m.mtu = std::uint32_t(mtu);
  }
  if (auto v = roce->find("queue_pairs")) m.queuePairs = int(v->integer(1, 256));
  if (auto v = roce->find("buffer")) m.switchBuffer = v->bytes();
  if (auto v = roce->find("retransmit_timeout")) m.retransmitTimeout = v->time();
  if (auto v = roce->find("ack_every")) m.ackEvery = int(v->integer(1, 1 << 20));
  // ECN thresholds come with the DCQCN preset; explicit ones override it.
  if (auto v = roce->find("dcqcn")) loadDcqcn(*v, m);
  if (auto v = roce->find("ecn")) loadEcn(*v, m.ecn);
  if (auto v = roce->find("pfc")) loadPfc(*v, m.pfc);
  if (auto v = roce->find("jitter")) m.jitter = loadJitter(*v);
  if (auto v = roce->find("switches")) {
    if (!v->isMap()) v->fail("expected switch names (or name prefixes: spine, leaf) mapped to {ecn, buffer}");
    for (const auto& [name, n] : v->entries()) {
      n.allowDeclared(InputKind::Scenario, "cluster.scale_out.switches.<switch>");
      SwitchSettings sw;
      sw.match = name;
      if (auto e = n.find("ecn")) {
        sw.ecn = m.ecn;
        loadEcn(*e, *sw.ecn);
      }
      if (auto b = n.find("buffer")) sw.buffer = b->bytes();
      m.switches.push_back(std::move(sw));
    }
  }
  if (m.switchBuffer < m.mtu + kRocePacketOverhead + kRethBytes)
    roce->at("buffer").fail("a switch port must hold at least one packet");
  return m;
}

} // namespace collsim
