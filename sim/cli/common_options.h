// Options both binaries (collsim and collsim-mpi) declare the same way: one
// name, one help line and one set of values each, so that a user who learns
// one command knows the others.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/report/output_format.h"

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace collsim {

// The --format values of one kind of output, declared once for every
// command that writes that kind.
struct FormatSet {
  std::vector<OutputFormat> values;
};
extern const FormatSet kRowFormats;       // a row per point or size: run, perf, sweeps, hccl-env
extern const FormatSet kMeasuredFormats;  // measured beside simulated: compare, collsim-mpi perf and compare
extern const FormatSet kReportFormats;    // one answer with its reasons: algorithms, calibrate, profile, select, verify
extern const FormatSet kReferenceFormats; // a reference page: keys
extern const FormatSet kGraphFormats;     // a topology: topology
extern const FormatSet kCheckFormats;     // a check CI reads: selector check

// --format, its values listed in --help; any other value is refused with
// the nearest one ("did you mean 'json'?").
CLI::Option* addFormatOption(CLI::App* cmd, OutputFormat& format, const FormatSet& set);

// nccl-tests' size sweep: -b/--min-bytes, -e/--max-bytes, -f/--step-factor
// (nccl-tests' own --minbytes, --maxbytes, --stepfactor kept).
void addSizeSweepOptions(CLI::App* cmd, std::string& minBytes, std::string& maxBytes, double& factor);

// calibrate's two products: --out is its report, as for every command, and
// the calibrated YAML goes to `writeOption` (--write-cluster, or
// --write-device for training runs). An --out that names a .yaml file with
// `written` not given is the old spelling, when --out was the YAML: it stays
// the YAML (the report goes to standard output), and a note says so.
void keepOldCalibrateOut(std::string& out, std::string& written, const std::string& writeOption, std::ostream& err);

} // namespace collsim
