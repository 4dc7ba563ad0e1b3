#include "algorithms/core/dtype.h"

namespace collsim {
namespace {
constexpr DataTypeInfo kTypes[] = {
    {DataType::Int8, "int8", 1},         {DataType::Int32, "int32", 4},
    {DataType::Float16, "float16", 2},   {DataType::BFloat16, "bfloat16", 2},
    {DataType::Float32, "float32", 4},   {DataType::Float64, "float64", 8}};
} // namespace

const DataTypeInfo& dataTypeInfo(DataType t) {
  for (const auto& info : kTypes)
    if (info.type == t) return info;
  return kTypes[4];
}

bool parseDataType(const std::string& name, DataType& out) {
  for (const auto& info : kTypes) {
    if (name == info.name) {
      out = info.type;
      return true;
    }
  }
  return false;
}

std::vector<std::string> dataTypeNames() {
  std::vector<std::string> names;
  for (const auto& info : kTypes) names.emplace_back(info.name);
  return names;
}

} // namespace collsim
