// Reading YAML configuration with errors that point at the source.
//
// A ConfigNode is a yaml-cpp node plus where it came from: the file (a
// scenario can pull its cluster from another file) or the `--set` override
// that produced it, and its dotted key path. Every accessor checks type and
// units and throws ConfigError with "file:line:column: key: problem".
#pragma once

#include <filesystem>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/config/key_registry.h"
#include "sim/core/input_error.h"
#include "sim/core/units.h"

namespace collsim {

// Bad configuration: the message is complete, located and ready to print.
struct ConfigError : InputError {
  using InputError::InputError;
};

// The line and column of every node of a parsed tree by its dotted path
// (ConfigNode's paths), values and keys apart: a copy of the tree
// (YAML::Clone) loses them, and a study copies its parsed root for every
// point rather than parse its files again.
struct YamlMarks {
  std::map<std::string, YAML::Mark> values, keys;
};
YamlMarks recordMarks(const YAML::Node& root);

// Which file (or override) each part of a configuration tree came from.
class ConfigOrigins {
public:
  explicit ConfigOrigins(std::string defaultFile) : defaultFile_(std::move(defaultFile)) {}
  // Everything under `path` (dotted) comes from `file`.
  // A file named by an override (--set cluster=FILE) then locates its own lines.
  void setFile(const std::string& path, const std::string& file) {
    files_[path] = file;
    overrides_.erase(path);
  }
  // `path` was set on the command line by `text` ("--set a.b=c").
  void setOverride(const std::string& path, const std::string& text) { overrides_[path] = text; }
  // "file:line:col" or "--set a.b=c" for a node at `path` (a mapping's key
  // when `key`). A copied node, marked at the start of the text, takes its
  // path's mark from those recorded of the tree it was copied from, if any.
  std::string locate(const std::string& path, const YAML::Mark& mark, bool key = false) const;
  void setMarks(std::shared_ptr<const YamlMarks> marks) { marks_ = std::move(marks); }
  // An override typed `typed` (cluster.scale_up) reached the file's own
  // spelling `stored` (cluster.hccs): messages name its keys as typed.
  void setSpelling(const std::string& stored, const std::string& typed) { spellings_[stored] = typed; }
  std::string asTyped(const std::string& path) const;

private:
  std::string defaultFile_;
  std::map<std::string, std::string> files_;
  std::map<std::string, std::string> overrides_;
  std::map<std::string, std::string> spellings_;
  std::shared_ptr<const YamlMarks> marks_;
};

class ConfigNode {
public:
  ConfigNode(YAML::Node node, std::shared_ptr<const ConfigOrigins> origins, std::string path = "");

  const std::string& path() const { return path_; }
  const YAML::Node& yaml() const { return node_; }
  bool isMap() const { return node_.IsMap(); }
  bool isSequence() const { return node_.IsSequence(); }
  bool isScalar() const { return node_.IsScalar(); }

  bool has(const std::string& key) const;
  ConfigNode at(const std::string& key) const; // throws if missing
  std::optional<ConfigNode> find(const std::string& key) const;
  std::vector<ConfigNode> items() const;       // a sequence's elements
  // A mapping's (key, value) pairs in file order (keys are scalars: parseYaml checks).
  std::vector<std::pair<std::string, ConfigNode>> entries() const;
  // Throws at the first key that `section` of `file` does not declare in
  // `form` (key_registry.h), with the nearest declared name; and if this is
  // not a map.
  void allowDeclared(InputKind file, std::string_view section, std::string_view form = "") const;
  // ... that none of these (section, form) pairs declares.
  void allowDeclared(InputKind file, std::initializer_list<std::pair<std::string_view, std::string_view>> sections) const;

  std::string text() const;
  std::string choice(std::initializer_list<const char*> options) const;
  std::string choice(const std::vector<std::string>& options) const;
  long long integer(long long min, long long max) const;
  double number() const;
  bool boolean() const;
  Bytes bytes() const;
  Bandwidth bandwidth() const;
  Time time() const;
  double count() const; // 340M, 1.5B
  double flops() const; // 312TFLOPS

  [[noreturn]] void fail(const std::string& problem) const;
  // "file:line:col" of this node, or the --set that gave it.
  std::string where() const;

private:
  std::string childPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  [[noreturn]] void failAt(const YAML::Mark& mark, bool key, const std::string& problem) const;

  YAML::Node node_;
  std::shared_ptr<const ConfigOrigins> origins_;
  std::string path_;
};

// Parses YAML text; syntax errors become ConfigError with file:line:column,
// and so do keys that are not single values, duplicate keys and absurd nesting.
YAML::Node parseYaml(const std::string& text, const std::string& file);
// The same for a whole file that must be a mapping; `what` names it ("a
// scenario"): an empty file or a list is a located error.
YAML::Node parseYamlMapping(const std::string& text, const std::string& file, const std::string& what);
// readInputFile + parseYamlMapping.
YAML::Node loadYamlFile(const std::string& file, const std::string& what);

// A key given by path (a scenario's cluster and training.model, a cluster's
// device) is replaced by the file's mapping, so that --set and a sweep can
// reach into it; `path` is the key's dotted path from the root, whose
// origins then locate the file's own lines. A relative path is relative to
// `base`. Nothing happens unless parent[key] is a scalar. Returns the file
// read ("" when none). A missing file near one of `names` (presets the key
// could have named instead) gets "did you mean".
std::string inlineYamlFile(YAML::Node& parent, const std::string& key, const std::string& path,
                           const std::filesystem::path& base, ConfigOrigins& origins,
                           const std::shared_ptr<ConfigOrigins>& shared, const std::vector<std::string>& names = {});

// The keys of a dotted path; a key in brackets keeps its dots:
// "sweep[cluster.servers]" -> sweep, cluster.servers. `label` names the
// assignment in errors (ConfigError).
std::vector<std::string> splitKeyPath(const std::string& path, const std::string& label);
// Applies a --set assignment "a.b.c=value" to `root`, creating mappings on
// the way, and records it in `origins` so errors point at the option.
void applyOverride(YAML::Node& root, const std::string& assignment, ConfigOrigins& origins,
                   const std::string& typed = "");
// Sets the node at dotted `path` to `value` the same way; `label` says where
// the assignment came from ("sweep training.bucket=64MiB").
void setPath(YAML::Node& root, const std::string& path, const YAML::Node& value, ConfigOrigins& origins,
             const std::string& label);

} // namespace collsim
