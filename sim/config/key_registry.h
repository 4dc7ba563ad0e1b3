// Every key collsim's input files take, declared once (as SimGrid declares
// each setting with its description and default): the section it sits in,
// its type, its default and one line of help.
//
// The readers allow exactly the keys declared for their section
// (ConfigNode::allowDeclared), so the table is what the loaders accept, and
// `collsim keys` and docs/keys.md are printed from it. A section is a dotted
// path from the file's root as `--set` spells it; `<name>` stands for a
// key the user chooses (a switch, a protocol, a swept key) and `[]` for the
// items of a list. A section may take its keys in forms that exclude each
// other (a jitter is uniform, or lognormal with a tail): `form` names them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace collsim {

// The kinds of input file. A scenario holds a cluster, a device and a model,
// each of which may also be a file of its own (its keys are those under
// `cluster.`, `cluster.device.` and `training.model.`).
enum class InputKind { Scenario, SelectorRules, SelectorGrid, Schedule };
const char* inputKindName(InputKind kind); // "scenario", "selector-rules", "selector-grid", "schedule"

struct DeclaredKey {
  InputKind file;
  const char* section;   // "cluster.scale_out.dcqcn"; "" is the file's root
  const char* form;      // "" (always), or the one form it belongs to
  const char* key;
  const char* type;      // "bandwidth", "time", "bytes", "integer 1-256", "one of: ring, mesh", ...
  const char* fallback;  // the default; "required"; "-" when absent means off or none
  const char* help;
  std::string path() const; // section.key
};

const std::vector<DeclaredKey>& declaredKeys();

// The keys `section` of `file` takes in `form` (and those of every form).
// Asking for a section nobody declared is a bug in collsim (std::logic_error).
std::vector<std::string> declaredKeysOf(InputKind file, std::string_view section, std::string_view form = "");

// A dotted path's segments: "rules[].when.bytes" -> rules[], when, bytes.
std::vector<std::string> pathSegments(std::string_view path);
// Whether a typed segment names a declared one: the same name (a list's
// "rules" names "rules[]"), any name for a <placeholder>, and the Ascend
// spellings hccs and roce for scale_up and scale_out.
bool segmentNames(std::string_view typed, std::string_view declared);
// Whether typed segments lead to (or are) the declared key's path.
bool leadsTo(const std::vector<std::string>& typed, const DeclaredKey& key);

} // namespace collsim
