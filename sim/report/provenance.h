// Where a result came from, written into it: the collsim version and the
// command line in every output form (a comment line in tables and CSV, an
// HTML comment in Markdown), and in JSON also the input as it ran (the
// scenario with its files inlined and every --set applied, or the cluster
// file with its overrides), so that a result file can be rerun.
#pragma once

#include <string>

#include "sim/report/report.h"

namespace collsim {

// "collsim run s.yaml --set 'a=b c'": argv as a shell would take it back,
// the program named `program` whatever path started it.
std::string commandLineOf(int argc, const char* const* argv, const std::string& program = "collsim");

// `text` in `format` with its provenance added.
std::string withProvenance(const std::string& text, OutputFormat format, const std::string& commandLine,
                           const std::string& resolvedInput);

} // namespace collsim
