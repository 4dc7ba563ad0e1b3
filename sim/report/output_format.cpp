#include "sim/report/output_format.h"

#include <array>

#include "algorithms/core/enum_names.h"

namespace collsim {

static constexpr std::array<Named<OutputFormat>, 6> kOutputFormats = {{{OutputFormat::Table, "table"},
                                                                        {OutputFormat::Json, "json"},
                                                                        {OutputFormat::Csv, "csv"},
                                                                        {OutputFormat::Markdown, "md"},
                                                                        {OutputFormat::Dot, "dot"},
                                                                        {OutputFormat::Junit, "junit"}}};

const char* outputFormatName(OutputFormat format) { return nameOf(kOutputFormats, format); }

bool parseOutputFormat(const std::string& name, OutputFormat& out) { return parseName(kOutputFormats, name, out); }

} // namespace collsim
