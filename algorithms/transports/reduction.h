// Element-wise reduction of real data: dst[i] = op(dst[i], src[i]).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/core/dtype.h"

namespace collsim {

enum class ReduceOp : std::uint8_t { Sum, Max, Min };

const char* reduceOpName(ReduceOp op);
bool parseReduceOp(const std::string& name, ReduceOp& out);

// Throws std::invalid_argument for types the transports cannot reduce
// (float16, bfloat16: no portable arithmetic on them).
void reduceInto(std::byte* dst, const std::byte* src, std::size_t count, DataType type, ReduceOp op);
bool canReduce(DataType type);

} // namespace collsim
