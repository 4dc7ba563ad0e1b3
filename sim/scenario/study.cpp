#include "sim/scenario/study.h"

#include <cmath>
#include <cstdio>

#include "sim/core/printable.h"
#include "sim/scenario/scenario.h"

namespace collsim {
namespace {

bool isPlainNumber(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0';
}

// The values one sweep key takes.
std::vector<YAML::Node> sweepValues(const ConfigNode& n, std::size_t maxPoints) {
  auto tooMany = [&](double count) {
    if (count > double(maxPoints))
      n.fail("the range has about " + std::to_string(static_cast<long long>(count)) + " values; a study has at most " +
             std::to_string(maxPoints) + " points");
  };
  std::vector<YAML::Node> values;
  if (n.isSequence()) {
    tooMany(double(n.yaml().size()));
    for (const ConfigNode& item : n.items()) {
      if (!item.isScalar()) item.fail("a swept value must be a single value");
      values.push_back(item.yaml());
    }
  } else if (n.isMap() && n.has("from")) {
    n.allowDeclared(InputKind::Scenario, "sweep.<key>", "range");
    long long from = n.at("from").integer(-(1LL << 40), 1LL << 40), to = n.at("to").integer(-(1LL << 40), 1LL << 40);
    long long step = n.has("step") ? n.at("step").integer(1, 1LL << 40) : 1;
    if (from > to) n.fail("from is larger than to");
    tooMany(double(to - from) / double(step) + 1);
    for (long long v = from; v <= to; v += step) values.emplace_back(std::to_string(v));
  } else if (n.isMap() && !n.has("min") && !n.has("max")) {
    // sweep: {cluster: {servers: [...]}}, or --set sweep.cluster.servers=...
    n.fail("a sweep key is a whole dotted path (cluster.servers: [2, 8]); on the command line: --set "
           "'sweep[cluster.servers]=[2,8]'");
  } else if (n.isMap()) {
    n.allowDeclared(InputKind::Scenario, "sweep.<key>", "geometric");
    double factor = n.has("factor") ? n.at("factor").number() : 2.0;
    if (factor <= 1.0) n.at("factor").fail("factor must be greater than 1");
    if (isPlainNumber(n.at("min").text()) && isPlainNumber(n.at("max").text())) {
      double min = n.at("min").number(), max = n.at("max").number();
      if (min <= 0 || min > max) n.fail("expected 0 < min <= max");
      tooMany(geometricCount(min, max, factor));
      for (double v = min; v <= max * (1 + 1e-12); v *= factor) values.emplace_back(std::to_string(std::llround(v)));
    } else {
      Bytes min = n.at("min").bytes(), max = n.at("max").bytes();
      if (min == 0 || min > max) n.fail("expected 0 < min <= max");
      tooMany(geometricCount(double(min), double(max), factor));
      for (Bytes b : geometricSizes(min, max, factor)) values.emplace_back(formatBytes(b));
    }
  } else {
    n.fail("sweep a key over a list, {from, to, step} or {min, max, factor}");
  }
  if (values.empty()) n.fail("the sweep gives no values");
  return values;
}

// A dotted key as a study may name one: printable, without spaces (a TAB
// pasted into a key would otherwise surface as an unknown key of whatever
// file the key reaches into).
void checkAssignedKey(const std::string& key, const ConfigNode& at, const char* section) {
  std::string shown;
  bool bad = false;
  for (unsigned char c : key) {
    if (c > 0x20 && c != 0x7f) { shown += char(c); continue; }
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02X", c);
    shown += hex, bad = true;
  }
  if (bad)
    throw ConfigError(at.where() + ": " + section + " key '" + printable(shown) +
                      "' holds a space or a control character");
}

} // namespace

StudyPoints expandStudy(const ConfigNode& root, std::size_t maxPoints) {
  StudyPoints points;
  points.variants_.resize(1);
  if (auto variants = root.find("variants")) {
    if (!variants->isSequence() || variants->items().empty()) variants->fail("expected a list of variants");
    points.variants_.clear();
    for (const ConfigNode& v : variants->items()) {
      v.allowDeclared(InputKind::Scenario, "variants[]");
      StudyPoint p;
      p.variant = v.at("name").text();
      for (const auto& other : points.variants_)
        if (other.variant == p.variant) v.at("name").fail("two variants are named '" + p.variant + "'");
      if (auto set = v.find("set")) {
        if (!set->isMap()) set->fail("expected a mapping of dotted keys to values");
        for (const auto& [key, value] : set->entries()) {
          checkAssignedKey(key, value, "variant set:");
          p.assignments.push_back({key, value.yaml(), value.where()});
        }
      }
      if (auto ref = v.find("reference")) p.reference = *ref;
      if (auto m = v.find("measured")) p.measured = *m;
      points.variants_.push_back(std::move(p));
    }
  }
  std::size_t count = points.variants_.size();
  if (auto sweep = root.find("sweep")) {
    if (!sweep->isMap() || sweep->yaml().size() == 0) sweep->fail("expected a mapping of dotted keys to values");
    for (const auto& [key, axis] : sweep->entries()) {
      checkAssignedKey(key, axis, "sweep");
      std::vector<YAML::Node> values = sweepValues(axis, maxPoints);
      if (count * values.size() > maxPoints)
        sweep->fail("the sweep has more than " + std::to_string(maxPoints) + " points");
      count *= values.size();
      points.axes_.push_back({key, std::move(values), axis.where()});
    }
  }
  return points;
}

std::size_t StudyPoints::size() const {
  std::size_t n = variants_.size();
  for (const Axis& a : axes_) n *= a.values.size();
  return n;
}

std::vector<StudyPoints::VariedKey> StudyPoints::variedKeys() const {
  std::vector<VariedKey> keys;
  for (const StudyPoint& v : variants_)
    for (const Assignment& a : v.assignments) keys.push_back({a.key, a.where, "variant '" + v.variant + "'"});
  for (const Axis& a : axes_) keys.push_back({a.key, a.where, "sweep"});
  return keys;
}

StudyPoint StudyPoints::operator[](std::size_t i) const {
  // The last axis varies fastest, then the one before, ..., then the variant.
  std::vector<std::size_t> at(axes_.size());
  for (std::size_t k = axes_.size(); k-- > 0;) {
    at[k] = i % axes_[k].values.size();
    i /= axes_[k].values.size();
  }
  StudyPoint p = variants_.at(i);
  for (std::size_t k = 0; k < axes_.size(); ++k) {
    const YAML::Node& v = axes_[k].values[at[k]];
    p.assignments.push_back({axes_[k].key, v, axes_[k].where});
    p.sweepValues.emplace_back(axes_[k].key, v.Scalar());
  }
  return p;
}

} // namespace collsim
