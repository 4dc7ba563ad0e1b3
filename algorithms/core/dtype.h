// Element types a collective moves and reduces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace collsim {

enum class DataType : std::uint8_t { Int8, Int32, Float16, BFloat16, Float32, Float64 };

struct DataTypeInfo {
  DataType type;
  const char* name;     // "float32"
  std::uint32_t bytes;  // element size
};

const DataTypeInfo& dataTypeInfo(DataType t);
bool parseDataType(const std::string& name, DataType& out);
std::vector<std::string> dataTypeNames();

} // namespace collsim
