#include "sim/scenario/config_node.h"

#include <fstream>
#include <sstream>

namespace collsim {

std::string ConfigOrigins::locate(const std::string& path, const YAML::Mark& mark) const {
  // The longest override or file prefix of `path` wins.
  auto covers = [&](const std::string& prefix) {
    return prefix.empty() || path == prefix || path.rfind(prefix + ".", 0) == 0;
  };
  std::string best, bestPrefix;
  bool found = false;
  for (const auto& [prefix, text] : overrides_)
    if (covers(prefix) && (!found || prefix.size() > bestPrefix.size())) best = text, bestPrefix = prefix, found = true;
  if (found) return best;
  std::string file = defaultFile_;
  for (const auto& [prefix, f] : files_)
    if (covers(prefix) && prefix.size() >= bestPrefix.size()) file = f, bestPrefix = prefix;
  if (mark.is_null()) return file;
  return file + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const ConfigOrigins> origins, std::string path)
    : node_(std::move(node)), origins_(std::move(origins)), path_(std::move(path)) {}

void ConfigNode::fail(const std::string& problem) const {
  std::string where = origins_->locate(path_, node_.Mark());
  throw ConfigError(where + ": " + (path_.empty() ? "" : path_ + ": ") + problem);
}

bool ConfigNode::has(const std::string& key) const { return node_.IsMap() && node_[key]; }

ConfigNode ConfigNode::at(const std::string& key) const {
  if (!node_.IsMap()) fail("expected a mapping with key '" + key + "'");
  if (!node_[key]) fail("missing required key '" + key + "'");
  return ConfigNode(node_[key], origins_, childPath(key));
}

std::optional<ConfigNode> ConfigNode::find(const std::string& key) const {
  if (!has(key)) return std::nullopt;
  return ConfigNode(node_[key], origins_, childPath(key));
}

std::vector<ConfigNode> ConfigNode::items() const {
  if (!node_.IsSequence()) fail("expected a list");
  std::vector<ConfigNode> out;
  for (std::size_t i = 0; i < node_.size(); ++i)
    out.emplace_back(node_[i], origins_, path_ + "[" + std::to_string(i) + "]");
  return out;
}

void ConfigNode::allowOnly(std::initializer_list<const char*> allowed) const {
  if (!node_.IsMap()) fail("expected a mapping");
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.as<std::string>();
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      ConfigNode(it->first, origins_, childPath(key)).fail("unknown key '" + key + "' (expected one of: " + list + ")");
    }
  }
}

std::string ConfigNode::text() const {
  if (!node_.IsScalar()) fail("expected a single value");
  return node_.Scalar();
}

std::string ConfigNode::choice(std::initializer_list<const char*> options) const {
  std::string v = text();
  std::string list;
  for (const char* o : options) {
    if (v == o) return v;
    list += std::string(list.empty() ? "" : ", ") + o;
  }
  fail("'" + v + "' is not one of: " + list);
}

long long ConfigNode::integer(long long min, long long max) const {
  std::string v = text();
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty()) fail("'" + v + "' is not a whole number");
  if (n < min || n > max) fail(std::to_string(n) + " is out of range " + std::to_string(min) + ".." + std::to_string(max));
  return n;
}

double ConfigNode::number() const {
  std::string v = text();
  std::size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty()) fail("'" + v + "' is not a number");
  return d;
}

bool ConfigNode::boolean() const {
  std::string v = text();
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  fail("'" + v + "' is not true or false");
}

template <typename F>
static auto withUnits(const ConfigNode& n, F parse) {
  try {
    return parse(n.text());
  } catch (const UnitError& e) {
    n.fail(e.what());
  }
}

Bytes ConfigNode::bytes() const { return withUnits(*this, parseBytes); }
Bandwidth ConfigNode::bandwidth() const { return withUnits(*this, parseBandwidth); }
Time ConfigNode::time() const { return withUnits(*this, parseTime); }
double ConfigNode::count() const { return withUnits(*this, parseCount); }
double ConfigNode::flops() const { return withUnits(*this, parseFlops); }

// Applies "a.b.c=value" to the tree, creating maps on the way.
void applyOverride(YAML::Node& root, const std::string& assignment, ConfigOrigins& origins) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + assignment + ": expected key.path=value");
  std::string path = assignment.substr(0, eq);
  YAML::Node value = parseYaml(assignment.substr(eq + 1), "--set " + assignment);
  setPath(root, path, value, origins, "--set " + assignment);
}

void setPath(YAML::Node& root, const std::string& path, const YAML::Node& value, ConfigOrigins& origins,
             const std::string& label) {
  const std::string& assignment = label; // errors name where the assignment came from
  std::vector<std::string> keys;
  for (std::size_t start = 0;;) {
    auto dot = path.find('.', start);
    keys.push_back(path.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  YAML::Node node = root;
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    if (keys[i].empty()) throw ConfigError(assignment + ": empty key in path");
    if (node[keys[i]] && !node[keys[i]].IsMap())
      throw ConfigError(assignment + ": '" + keys[i] + "' is not a mapping");
    node.reset(node[keys[i]]);
  }
  node[keys.back()] = value;
  origins.setOverride(path, assignment);
}

YAML::Node parseYaml(const std::string& text, const std::string& file) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(file + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": YAML syntax error: " + e.msg);
  }
}

YAML::Node loadYamlFile(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(file + ": cannot open file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parseYaml(buffer.str(), file);
}

} // namespace collsim
