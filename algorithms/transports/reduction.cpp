#include "algorithms/transports/reduction.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "algorithms/core/enum_names.h"

namespace collsim {
namespace {

template <typename T>
void apply(std::byte* dst, const std::byte* src, std::size_t count, ReduceOp op) {
  for (std::size_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, dst + i * sizeof(T), sizeof(T)); // buffers need not be aligned
    std::memcpy(&b, src + i * sizeof(T), sizeof(T));
    T r = op == ReduceOp::Sum ? T(a + b) : op == ReduceOp::Max ? std::max(a, b) : std::min(a, b);
    std::memcpy(dst + i * sizeof(T), &r, sizeof(T));
  }
}

} // namespace

constexpr std::array<Named<ReduceOp>, 3> kReduceOps = {{{ReduceOp::Sum, "sum"}, {ReduceOp::Max, "max"}, {ReduceOp::Min, "min"}}};

const char* reduceOpName(ReduceOp op) { return nameOf(kReduceOps, op); }

bool parseReduceOp(const std::string& name, ReduceOp& out) { return parseName(kReduceOps, name, out); }

bool canReduce(DataType type) { return type != DataType::Float16 && type != DataType::BFloat16; }

void reduceInto(std::byte* dst, const std::byte* src, std::size_t count, DataType type, ReduceOp op) {
  switch (type) {
  case DataType::Int8: return apply<std::int8_t>(dst, src, count, op);
  case DataType::Int32: return apply<std::int32_t>(dst, src, count, op);
  case DataType::Float32: return apply<float>(dst, src, count, op);
  case DataType::Float64: return apply<double>(dst, src, count, op);
  case DataType::Float16:
  case DataType::BFloat16: break;
  }
  throw std::invalid_argument(std::string("reductions of ") + dataTypeInfo(type).name + " are not supported");
}

} // namespace collsim
