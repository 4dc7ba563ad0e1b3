// collsim keys: every key the input files take, from the declared registry
// (sim/config/key_registry.h), as text, JSON or the Markdown of docs/keys.md.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <cctype>
#include <sstream>

#include "sim/cli/command.h"
#include "sim/cli/common_options.h"
#include "sim/config/key_registry.h"
#include "sim/core/closest_name.h"

namespace collsim {
namespace {

struct KeysOptions {
  std::string prefix, file = "all", out;
  OutputFormat format = OutputFormat::Table;
};

const InputKind kKinds[] = {InputKind::Scenario, InputKind::SelectorRules, InputKind::SelectorGrid,
                            InputKind::Schedule};

std::string defaultText(const DeclaredKey& k) { return std::string(k.fallback) == "-" ? "none" : k.fallback; }

// "(default: 4096)", or "(required)" and "(required when shared)".
std::string defaultNote(const DeclaredKey& k) {
  const std::string d = defaultText(k);
  return d.rfind("required", 0) == 0 ? "(" + d + ")" : "(default: " + d + ")";
}

std::string formText(const DeclaredKey& k) { return *k.form ? std::string(" (") + k.form + " form)" : ""; }

std::string table(const std::vector<const DeclaredKey*>& keys) {
  std::ostringstream os;
  InputKind shown = InputKind::Scenario;
  bool first = true;
  for (const DeclaredKey* k : keys) {
    if (first || k->file != shown) {
      os << (first ? "" : "\n") << "# in a " << inputKindName(k->file) << " file"
         << (k->file == InputKind::Scenario ? " (a cluster, device or model file holds the keys under cluster., "
                                              "cluster.device. or training.model.)"
                                            : "")
         << "\n";
      shown = k->file, first = false;
    }
    os << k->path() << formText(*k) << ": " << k->type << " " << defaultNote(*k) << "\n    " << k->help
       << "\n";
  }
  return os.str();
}

std::string markdown(const std::vector<const DeclaredKey*>& keys) {
  auto cell = [](std::string s) {
    for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
    return s;
  };
  std::ostringstream os;
  InputKind shown = InputKind::Scenario;
  bool first = true;
  for (const DeclaredKey* k : keys) {
    if (first || k->file != shown) {
      std::string title = inputKindName(k->file);
      title[0] = char(std::toupper(static_cast<unsigned char>(title[0])));
      os << (first ? "" : "\n") << "## " << title << " files\n\n"
         << "| key | type | default | what it sets |\n|---|---|---|---|\n";
      shown = k->file, first = false;
    }
    os << "| `" << k->path() << "`" << formText(*k) << " | " << cell(k->type) << " | " << cell(defaultText(*k)) << " | "
       << cell(k->help) << " |\n";
  }
  return os.str();
}

std::string json(const std::vector<const DeclaredKey*>& keys) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const DeclaredKey* k : keys) {
    nlohmann::ordered_json row{{"file", inputKindName(k->file)}, {"key", k->path()}, {"type", k->type},
                               {"default", k->fallback}, {"help", k->help}};
    if (*k->form) row["form"] = k->form;
    all.push_back(row);
  }
  return nlohmann::ordered_json{{"keys", all}}.dump(2) + "\n";
}

int listKeys(const KeysOptions& o, CliStreams io) {
  std::vector<const DeclaredKey*> keys;
  for (InputKind kind : kKinds)
    if (o.file == "all" || o.file == inputKindName(kind))
      for (const DeclaredKey& k : declaredKeys())
        if (k.file == kind && leadsTo(pathSegments(o.prefix), k)) keys.push_back(&k);
  if (keys.empty()) {
    std::vector<std::string> paths;
    for (const DeclaredKey& k : declaredKeys()) paths.push_back(k.path());
    std::string near = closestName(o.prefix, paths);
    throw UsageError("no key '" + o.prefix + "' in " + (o.file == "all" ? "any input file" : "a " + o.file + " file") +
                     (near.empty() ? "" : "; did you mean '" + near + "'?") + " (collsim keys lists them all)");
  }
  io.out << (o.format == OutputFormat::Json ? json(keys) : o.format == OutputFormat::Markdown ? markdown(keys) : table(keys));
  return 0;
}

} // namespace

Command addKeysCommand(CLI::App& app) {
  auto o = std::make_shared<KeysOptions>();
  auto* cmd = app.add_subcommand("keys", "list every key of the input files: type, default and what it sets");
  cmd->add_option("prefix", o->prefix, "only the keys under this dotted path: cluster.scale_out, training.parallel.tp");
  std::vector<std::string> files = {"all"};
  for (InputKind kind : kKinds) files.push_back(inputKindName(kind));
  cmd->add_option("--file", o->file, "which input file's keys")->check(CLI::IsMember(files))->capture_default_str();
  addFormatOption(cmd, o->format, kReferenceFormats);
  addOutOption(cmd, o->out);
  return {cmd, [o](CliStreams io) { return runWritingTo(o->out, io, [&](CliStreams to) { return listKeys(*o, to); }); }};
}

} // namespace collsim
