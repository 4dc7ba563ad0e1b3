#include "sim/cli/common_options.h"

#include <algorithm>
#include <ostream>

#include <CLI/CLI.hpp>

#include "sim/core/closest_name.h"

namespace collsim {

using F = OutputFormat;
const FormatSet kRowFormats{{F::Table, F::Json, F::Csv, F::Markdown}};
const FormatSet kMeasuredFormats{{F::Table, F::Json, F::Csv}};
const FormatSet kReportFormats{{F::Table, F::Json}};
const FormatSet kReferenceFormats{{F::Table, F::Json, F::Markdown}};
const FormatSet kGraphFormats{{F::Table, F::Json, F::Dot}};
const FormatSet kCheckFormats{{F::Table, F::Json, F::Csv, F::Markdown, F::Junit}};

// The value is a name; the validator turns it into the enum's number,
// which CLI11 stores in `format`.
CLI::Option* addFormatOption(CLI::App* cmd, OutputFormat& format, const FormatSet& set) {
  std::vector<std::string> names;
  for (OutputFormat f : set.values) names.push_back(outputFormatName(f));
  std::string listed;
  for (const auto& n : names) listed += (listed.empty() ? "" : ",") + n;
  CLI::Validator oneOf(
      [names, values = set.values](std::string& v) -> std::string {
        auto it = std::find(names.begin(), names.end(), v);
        if (it == names.end()) return unknownName("format", v, names);
        v = std::to_string(int(values[std::size_t(it - names.begin())]));
        return "";
      },
      "{" + listed + "}");
  return cmd->add_option("--format", format, "output format")
      ->transform(oneOf)
      ->type_name("TEXT")
      ->default_str(outputFormatName(format));
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
