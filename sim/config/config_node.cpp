#include "sim/config/config_node.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <set>

#include <yaml-cpp/depthguard.h>

#include "sim/core/closest_name.h"
#include "sim/core/text_list.h"
#include "sim/core/printable.h"
#include "sim/config/input_file.h"

namespace collsim {

// A key is quoted in messages only when it looks like one (letters, also
// beyond ASCII, digits, _ - .): the content of a file that is not a collsim
// file (--set cluster=/etc/shadow) is never echoed. Paths keep every key as
// written, so that a key is located wherever it came from (a sweep's key
// reaching into a cluster file is the sweep's); only what is shown hides one.
static bool looksLikeKey(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (unsigned char c : key)
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c >= 0x80)) return false;
  return true;
}

static std::string keyName(const std::string& key) { return looksLikeKey(key) ? key : "?"; }

// A dotted path as messages show it: each key that does not look like one as '?'.
static std::string shownPath(const std::string& path) {
  std::string out, key;
  auto flush = [&] {
    if (!key.empty()) out += keyName(key), key.clear(); // nothing between "[0]" and "."
  };
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '.') flush(), out += '.';
    else if (path[i] == '[' && path.find(']', i) != std::string::npos) {
      flush();
      out += path.substr(i, path.find(']', i) - i + 1);
      i = path.find(']', i);
    } else key += path[i];
  }
  flush();
  return out;
}

std::string ConfigOrigins::asTyped(const std::string& path) const {
  for (const auto& [stored, typed] : spellings_)
    if (path == stored || path.rfind(stored + ".", 0) == 0 || path.rfind(stored + "[", 0) == 0)
      return typed + path.substr(stored.size());
  return path;
}

std::string ConfigOrigins::locate(const std::string& path, const YAML::Mark& given, bool key) const {
  YAML::Mark mark = given;
  // YAML::Clone marks every node it makes at the start of the text.
  const bool copied = given.is_null() || (given.pos == 0 && given.line == 0 && given.column == 0);
  if (copied && marks_) {
    const auto& table = key ? marks_->keys : marks_->values;
    if (auto it = table.find(path); it != table.end()) mark = it->second;
  }
  // The longest override or file prefix of `path` wins.
  auto covers = [&](const std::string& prefix) {
    // A key's children (prefix.x) and a list's items (prefix[i]).
    return prefix.empty() || path == prefix || path.rfind(prefix + ".", 0) == 0 || path.rfind(prefix + "[", 0) == 0;
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

std::string ConfigNode::where() const { return printable(origins_->locate(path_, node_.Mark())); }

void ConfigNode::fail(const std::string& problem) const { failAt(node_.Mark(), false, problem); }

void ConfigNode::failAt(const YAML::Mark& mark, bool key, const std::string& problem) const {
  std::string where = origins_->locate(path_, mark, key);
  std::string shown = shownPath(origins_->asTyped(path_));
  throw ConfigError(printable(where + ": " + (shown.empty() ? "" : shown + ": ") + problem));
}

YamlMarks recordMarks(const YAML::Node& root) {
  YamlMarks marks;
  // Iterative, as checkTree: the walk is as deep as the file.
  std::vector<std::pair<YAML::Node, std::string>> todo{{root, ""}};
  while (!todo.empty()) {
    const YAML::Node node = todo.back().first;
    const std::string path = std::move(todo.back().second);
    todo.pop_back();
    marks.values.emplace(path, node.Mark());
    auto child = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
    if (node.IsMap()) {
      for (auto it = node.begin(); it != node.end(); ++it) {
        std::string at = child(it->first.Scalar());
        marks.keys.emplace(at, it->first.Mark());
        todo.emplace_back(it->second, at);
      }
    } else if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) todo.emplace_back(node[i], path + "[" + std::to_string(i) + "]");
    }
  }
  return marks;
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

void ConfigNode::allowDeclared(InputKind file, std::string_view section, std::string_view form) const {
  allowDeclared(file, {{section, form}});
}

void ConfigNode::allowDeclared(InputKind file,
                               std::initializer_list<std::pair<std::string_view, std::string_view>> sections) const {
  if (!node_.IsMap()) fail("expected a mapping");
  std::vector<std::string> allowed;
  for (auto [section, form] : sections)
    for (std::string& key : declaredKeysOf(file, section, form))
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) allowed.push_back(std::move(key));
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar(); // parseYaml allows scalar keys only
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string shown = looksLikeKey(key) ? "unknown key '" + key + "'" : "a line that is not a collsim key";
    std::string near = looksLikeKey(key) ? closestName(key, allowed) : "";
    if (!near.empty()) shown += "; did you mean '" + near + "'?";
    ConfigNode(it->first, origins_, childPath(key)).failAt(it->first.Mark(), true, shown + " (expected one of: " + joinNames(allowed) + ")");
  }
}

std::string ConfigNode::text() const {
  if (!node_.IsScalar()) fail("expected a single value");
  const std::string& v = node_.Scalar();
  for (std::size_t i = 0; i < v.size();) {
    std::size_t n = utf8SequenceLength(v, i);
    if (n == 0 || isControlCodePoint(decodeUtf8(v, i, n)))
      fail("the value holds a control character or a byte that is not UTF-8: " + printable(v, false));
    i += n;
  }
  return v;
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  if (!node_.IsMap()) fail("expected a mapping");
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    std::string key = it->first.Scalar();
    out.emplace_back(key, ConfigNode(it->second, origins_, childPath(key)));
  }
  return out;
}

std::string ConfigNode::choice(std::initializer_list<const char*> options) const {
  return choice(std::vector<std::string>(options.begin(), options.end()));
}

std::string ConfigNode::choice(const std::vector<std::string>& options) const {
  std::string v = text();
  std::string list;
  for (const std::string& o : options) {
    if (v == o) return v;
    list += (list.empty() ? "" : ", ") + o;
  }
  fail("'" + v + "' is not one of: " + list + didYouMean(v, options));
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
  if (!std::isfinite(d)) fail("'" + v + "' is not a finite number");
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

// "a.b.c" -> a, b, c; a key in brackets keeps its dots: "sweep[cluster.servers]"
// -> sweep, cluster.servers (a sweep axis is itself a dotted key).
std::vector<std::string> splitKeyPath(const std::string& path, const std::string& label) {
  std::vector<std::string> keys(1);
  bool afterBracket = false; // "a[b]" must go on with "." or end
  for (std::size_t i = 0; i < path.size(); ++i) {
    char c = path[i];
    if (afterBracket && c != '.' && c != '[')
      throw ConfigError(label + ": expected '.' or the end after ']' in '" + path + "'");
    afterBracket = false;
    if (c == '.') {
      keys.emplace_back();
    } else if (c == '[') {
      auto close = path.find(']', i);
      if (close == std::string::npos) throw ConfigError(label + ": '[' without ']' in '" + path + "'");
      if (!keys.back().empty()) keys.emplace_back();
      keys.back() = path.substr(i + 1, close - i - 1);
      if (keys.back().empty()) throw ConfigError(label + ": empty key in brackets in '" + path + "'");
      i = close;
      afterBracket = true;
    } else if (c == ']') {
      throw ConfigError(label + ": ']' without '[' in '" + path + "'");
    } else {
      keys.back() += c;
    }
  }
  for (const auto& k : keys)
    if (k.empty()) throw ConfigError(label + ": empty key in path '" + path + "'");
  return keys;
}

// Applies "a.b.c=value" to the tree, creating maps on the way. `typed` is
// the assignment as the user wrote it, when an alias made it `assignment`
// (scale_up. for a file's hccs.): messages quote and name it as typed.
void applyOverride(YAML::Node& root, const std::string& assignment, ConfigOrigins& origins, const std::string& typed) {
  const std::string& shown = typed.empty() ? assignment : typed;
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw ConfigError("--set " + printable(shown) + ": expected key.path=value");
  std::string path = assignment.substr(0, eq);
  YAML::Node value = parseYaml(assignment.substr(eq + 1), "--set " + shown);
  setPath(root, path, value, origins, "--set " + shown);
  std::string typedPath = shown.substr(0, shown.find('='));
  if (typedPath == path) return;
  // The two spellings differ in their heads: keep those, the tails are one.
  std::size_t tail = 0;
  while (tail < path.size() && tail < typedPath.size() &&
         path[path.size() - 1 - tail] == typedPath[typedPath.size() - 1 - tail])
    ++tail;
  while (tail > 0 && path[path.size() - tail] != '.') --tail; // whole keys only
  origins.setSpelling(path.substr(0, path.size() - tail), typedPath.substr(0, typedPath.size() - tail));
}

// A list's item by its index, as `--set cluster.tiers.2.latency=1us` or
// `tiers[2]` name it.
static std::size_t itemIndex(const YAML::Node& list, const std::string& key, const std::string& assignment) {
  const bool digits = !key.empty() && key.size() < 8 && std::all_of(key.begin(), key.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (list.size() == 0) throw ConfigError(assignment + ": '" + key + "' names an item of an empty list");
  if (!digits || std::stoul(key) >= list.size())
    throw ConfigError(assignment + ": '" + key + "' is not an item of this list; its items are 0.." + std::to_string(list.size() - 1));
  return std::stoul(key);
}

void setPath(YAML::Node& root, const std::string& path, const YAML::Node& value, ConfigOrigins& origins,
             const std::string& label) {
  const std::string& assignment = label; // errors name where the assignment came from
  std::vector<std::string> keys = splitKeyPath(path, assignment);
  YAML::Node node = root;
  std::string made; // the path so far, as ConfigNode names it: keys joined by dots, items as [i]
  auto step = [&](const std::string& key) -> YAML::Node {
    if (node.IsSequence()) {
      made += "[" + key + "]";
      return node[itemIndex(node, key, assignment)];
    }
    made += (made.empty() ? "" : ".") + key;
    return node[key];
  };
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    if (keys[i].empty()) throw ConfigError(assignment + ": empty key in path");
    YAML::Node child = step(keys[i]);
    if (child && !child.IsMap() && !child.IsSequence())
      throw ConfigError(assignment + ": '" + keys[i] + "' is not a mapping or a list");
    // A mapping the assignment creates is the assignment's, for its errors.
    if (!child) origins.setOverride(made, assignment);
    node.reset(child);
  }
  YAML::Node target = step(keys.back());
  target = value;
  origins.setOverride(made, assignment);
}

static std::string located(const std::string& file, const YAML::Mark& m) {
  if (m.is_null()) return printable(file);
  return printable(file) + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
}

// What YAML allows and collsim does not: keys that are not single values
// ([a]: 1), the same key twice (yaml-cpp keeps one silently), nesting
// deeper than any collsim file, and more values than any collsim file once
// aliases are expanded (a few lines of nested aliases name billions of
// values; every reader after this one walks them). Iterative, so depth
// cannot overflow the stack.
static void checkTree(const YAML::Node& root, const std::string& file) {
  constexpr int kMaxDepth = 64;
  constexpr std::size_t kMaxValues = 100'000;
  std::vector<std::pair<YAML::Node, int>> todo{{root, 0}};
  std::size_t values = 0;
  while (!todo.empty()) {
    auto [node, depth] = todo.back();
    todo.pop_back();
    if (depth > kMaxDepth) throw ConfigError(located(file, node.Mark()) + ": nested more than 64 levels deep");
    if (++values > kMaxValues)
      throw ConfigError(located(file, node.Mark()) + ": more than 100,000 values once YAML aliases are expanded; " +
                        "no collsim file needs that many");
    if (node.IsSequence()) {
      for (const auto& item : node) todo.emplace_back(item, depth + 1);
    } else if (node.IsMap()) {
      std::set<std::string> seen;
      for (auto it = node.begin(); it != node.end(); ++it) {
        if (!it->first.IsScalar())
          throw ConfigError(located(file, it->first.Mark()) + ": a mapping key must be a single value, not a list or mapping");
        if (!seen.insert(it->first.Scalar()).second)
          throw ConfigError(located(file, it->first.Mark()) + ": duplicate key '" + keyName(it->first.Scalar()) + "'");
        todo.emplace_back(it->second, depth + 1);
      }
    }
  }
}

// The line where a second YAML document starts, 0 when there is none: a
// '---' after content or after another '---', or content after a '...'.
// Document markers stand at column 0 and cannot occur inside a scalar, so
// the lines say it; YAML::LoadAll would, but it loops on some malformed
// input (found by the fuzz target).
static int secondDocumentLine(const std::string& text) {
  auto marker = [](const std::string& line, const char* m) {
    return line.compare(0, 3, m) == 0 && (line.size() == 3 || std::isspace(static_cast<unsigned char>(line[3])));
  };
  bool content = false, started = false, ended = false;
  std::size_t at = 0;
  for (int n = 1; at <= text.size(); ++n) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    const std::size_t first = line.find_first_not_of(" \t\r");
    const bool blank = first == std::string::npos || line[first] == '#';
    if (marker(line, "---")) {
      if (content || started || ended) return n;
      started = true;
      const std::size_t rest = line.find_first_not_of(" \t\r", 3);
      content = rest != std::string::npos && line[rest] != '#';
    } else if (marker(line, "...")) {
      ended = true;
    } else if (!blank && line[0] != '%') { // '%' lines are directives, before a document
      if (ended) return n;
      content = true;
    }
  }
  return 0;
}

// What checkTree refuses, found in the text before yaml-cpp reads it:
// yaml-cpp holds about 100 bytes per byte of a file, and 240 of a flood of
// '{' (16 MiB of them took 3.9 GB), and stops deep nesting with "bad file".
// Outside quotes and comments, each '[' or '{' opens a level, and each ','
// in a flow and each line with content outside one holds at least one
// value: more than checkTree allows is refused here, where it is passed. (A block scalar's
// lines count as values: no collsim file has 100,000 of them.)
static void checkTextShape(const std::string& text, const std::string& file) {
  constexpr int kMaxDepth = 64;
  constexpr std::size_t kMaxValues = 100'000;
  std::size_t line = 1, column = 0, values = 0;
  int depth = 0;
  char quote = 0;
  bool comment = false, content = false;
  auto at = [&] { return printable(file) + ":" + std::to_string(line) + ":" + std::to_string(column); };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++column;
    if (c == '\n') {
      values += content && depth == 0; // a flow's lines are counted by its commas
      if (values > kMaxValues) break;
      content = comment = false, ++line, column = 0;
      continue;
    }
    if (comment) continue;
    if (quote) {
      if (c == '\\' && quote == '"') ++i, ++column;
      else if (c == quote && !(quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'')) quote = 0;
      else if (c == quote) ++i, ++column; // '' inside single quotes
      continue;
    }
    if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1])))) {
      comment = true;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) content = true;
    if ((c == '"' || c == '\'') && (i == 0 || std::strchr(" \t[{,:-", text[i - 1]))) quote = c;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) throw ConfigError(at() + ": nested more than 64 levels deep");
    } else if ((c == ']' || c == '}') && depth > 0) --depth;
    else if (c == ',' && depth > 0 && ++values > kMaxValues) break;
  }
  if (values > kMaxValues)
    throw ConfigError(at() + ": more than 100,000 values; no collsim file needs that many");
}

YAML::Node parseYaml(const std::string& text, const std::string& file) {
  checkTextShape(text, file);
  YAML::Node root;
  try {
    root = YAML::Load(text); // the first document; a second is refused below
  } catch (const YAML::DeepRecursion& e) { // yaml-cpp says "bad file"
    throw ConfigError(located(file, e.mark) + ": nested more than 64 levels deep");
  } catch (const YAML::Exception& e) {
    throw ConfigError(located(file, e.mark) + ": YAML syntax error: " + printable(e.msg));
  }
  if (int line = secondDocumentLine(text))
    throw ConfigError(printable(file) + ":" + std::to_string(line) +
                      ":1: a second YAML document; a collsim file is one document");
  checkTree(root, file);
  return root;
}

YAML::Node parseYamlMapping(const std::string& text, const std::string& file, const std::string& what) {
  YAML::Node root = parseYaml(text, file);
  if (root.IsNull()) throw ConfigError(printable(file) + ":1:1: the file is empty; " + what + " is a YAML mapping");
  if (!root.IsMap()) throw ConfigError(located(file, root.Mark()) + ": " + what + " is a YAML mapping (key: value lines)");
  return root;
}

YAML::Node loadYamlFile(const std::string& file, const std::string& what) {
  return parseYamlMapping(readInputFile(file, what), file, what);
}

std::string inlineYamlFile(YAML::Node& parent, const std::string& key, const std::string& path,
                           const std::filesystem::path& base, ConfigOrigins& origins,
                           const std::shared_ptr<ConfigOrigins>& shared, const std::vector<std::string>& names) {
  if (!parent[key] || !parent[key].IsScalar()) return "";
  std::filesystem::path p = parent[key].Scalar();
  if (p.is_relative()) p = base / p;
  std::error_code error;
  if (!std::filesystem::exists(p, error))
    ConfigNode(parent[key], shared, path)
        .fail(path + " file '" + p.string() + "': " + (error ? error.message() : "no such file") +
              didYouMean(parent[key].Scalar(), names));
  parent[key] = loadYamlFile(p.string(), "the " + path + " file");
  origins.setFile(path, p.string());
  return p.string();
}

} // namespace collsim
