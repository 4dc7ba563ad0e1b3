// The forms collsim writes its outputs in. Names exist only at input (the
// --format option) and in messages; every writer switches on the enum.
#pragma once

#include <string>

namespace collsim {

enum class OutputFormat { Table, Json, Csv, Markdown, Dot, Junit };
const char* outputFormatName(OutputFormat format); // "table", "json", "csv", "md", "dot", "junit"
bool parseOutputFormat(const std::string& name, OutputFormat& out);

} // namespace collsim
