#include "sim/cli/common_options.h"

#include <algorithm>
#include <ostream>

#include <CLI/CLI.hpp>

#include "sim/core/closest_name.h"

namespace collsim {

const FormatSet kRowFormats{{"table", "json", "csv", "md"}};
const FormatSet kMeasuredFormats{{"table", "json", "csv"}};
const FormatSet kReportFormats{{"table", "json"}};
const FormatSet kReferenceFormats{{"table", "json", "md"}};
const FormatSet kGraphFormats{{"table", "json", "dot"}};
const FormatSet kCheckFormats{{"table", "json", "csv", "md", "junit"}};

CLI::Option* addFormatOption(CLI::App* cmd, std::string& format, const FormatSet& set) {
  std::string listed;
  for (const auto& v : set.values) listed += (listed.empty() ? "" : ",") + v;
  CLI::Validator oneOf(
      [values = set.values](std::string& v) -> std::string {
        if (std::find(values.begin(), values.end(), v) != values.end()) return "";
        return unknownName("format", v, values);
      },
      "{" + listed + "}");
  return cmd->add_option("--format", format, "output format")->check(oneOf)->capture_default_str();
}

void addSizeSweepOptions(CLI::App* cmd, std::string& minBytes, std::string& maxBytes, double& factor) {
  cmd->add_option("-b,--min-bytes,--minbytes", minBytes, "smallest size")->capture_default_str();
  cmd->add_option("-e,--max-bytes,--maxbytes", maxBytes, "largest size")->capture_default_str();
  cmd->add_option("-f,--step-factor,--stepfactor", factor, "size multiplier")->capture_default_str();
}

void keepOldCalibrateOut(std::string& out, std::string& written, const std::string& writeOption, std::ostream& err) {
  if (!written.empty() || !(out.ends_with(".yaml") || out.ends_with(".yml"))) return;
  err << "collsim: note: --out " << out << " is taken as " << writeOption
      << " (the calibrated YAML), as it was; --out is now the report\n";
  written = std::move(out);
  out.clear();
}

} // namespace collsim
