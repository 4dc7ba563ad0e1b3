#include "algorithms/transports/reference_data.h"

#include <algorithm>
#include <cstring>

namespace collsim {

ReferenceData::ReferenceData(const CollectiveSpec& spec, DataType type, ReduceOp op)
    : spec_(spec), type_(type), op_(op) {}

double ReferenceData::input(int rank, std::uint64_t i) const {
  // int8 sums of up to 64 ranks must stay within -128..127.
  if (type_ == DataType::Int8) return double(int((std::uint64_t(rank) + 2 * i) % 3) - 1);
  return double(int((std::uint64_t(rank) * 131 + i * 7) % 1001) - 500);
}

double ReferenceData::sentinel() const { return type_ == DataType::Int8 ? 77 : 12345; }

double ReferenceData::reduced(std::uint64_t e) const {
  double acc = input(0, e);
  for (int r = 1; r < spec_.ranks; ++r) {
    double v = input(r, e);
    acc = op_ == ReduceOp::Sum ? acc + v : op_ == ReduceOp::Max ? std::max(acc, v) : std::min(acc, v);
  }
  return acc;
}

bool ReferenceData::expected(int rank, std::uint64_t e, double& value) const {
  const int p = spec_.ranks;
  switch (spec_.op) {
  case Collective::AllReduce: value = reduced(e); return true;
  case Collective::Reduce:
    value = reduced(e);
    return rank == spec_.root;
  case Collective::ReduceScatter: {
    Block b = blockOf(spec_.count, p, rank);
    value = reduced(e);
    return e >= b.first && e < b.first + b.count;
  }
  case Collective::AllGather: {
    int owner = 0;
    while (blockOf(spec_.count, p, owner).first + blockOf(spec_.count, p, owner).count <= e) ++owner;
    value = input(owner, e);
    return true;
  }
  case Collective::Broadcast: value = input(spec_.root, e); return true;
  case Collective::AllToAll: {
    std::uint64_t b = spec_.count / std::uint64_t(p);
    if (e < spec_.count || b == 0 || e >= spec_.count + b * std::uint64_t(p)) return false;
    std::uint64_t j = (e - spec_.count) / b, k = (e - spec_.count) % b;
    value = input(int(j), std::uint64_t(rank) * b + k); // rank j's block for me
    return true;
  }
  }
  return false;
}

void ReferenceData::store(std::byte* buffer, std::uint64_t e, double v) const {
  std::byte* at = buffer + e * dataTypeInfo(type_).bytes;
  switch (type_) {
  case DataType::Int8: { auto x = std::int8_t(v); std::memcpy(at, &x, 1); break; }
  case DataType::Int32: { auto x = std::int32_t(v); std::memcpy(at, &x, 4); break; }
  case DataType::Float32: { auto x = float(v); std::memcpy(at, &x, 4); break; }
  case DataType::Float64: std::memcpy(at, &v, 8); break;
  case DataType::Float16:
  case DataType::BFloat16: { auto x = std::uint16_t(int(v) & 0xffff); std::memcpy(at, &x, 2); break; } // moved, never reduced
  }
}

double ReferenceData::load(const std::byte* buffer, std::uint64_t e) const {
  const std::byte* at = buffer + e * dataTypeInfo(type_).bytes;
  switch (type_) {
  case DataType::Int8: { std::int8_t x; std::memcpy(&x, at, 1); return x; }
  case DataType::Int32: { std::int32_t x; std::memcpy(&x, at, 4); return x; }
  case DataType::Float32: { float x; std::memcpy(&x, at, 4); return x; }
  case DataType::Float64: { double x; std::memcpy(&x, at, 8); return x; }
  case DataType::Float16:
  case DataType::BFloat16: { std::uint16_t x; std::memcpy(&x, at, 2); return double(std::int16_t(x)); }
  }
  return 0;
}

void ReferenceData::fill(int rank, std::byte* buffer) const {
  const int p = spec_.ranks;
  for (std::uint64_t e = 0; e < spec_.bufferElems(); ++e) {
    bool owned = true;
    switch (spec_.op) {
    case Collective::AllGather: {
      Block b = blockOf(spec_.count, p, rank);
      owned = e >= b.first && e < b.first + b.count;
      break;
    }
    case Collective::Broadcast: owned = rank == spec_.root; break;
    case Collective::AllToAll: owned = e < spec_.count; break;
    default: break;
    }
    store(buffer, e, owned ? input(rank, e) : sentinel());
  }
}

std::uint64_t ReferenceData::countWrong(int rank, const std::byte* buffer, std::string* first) const {
  std::uint64_t wrong = 0;
  for (std::uint64_t e = 0; e < spec_.bufferElems(); ++e) {
    double want;
    if (!expected(rank, e, want)) continue;
    double got = load(buffer, e);
    if (got == want) continue;
    if (wrong++ == 0 && first)
      *first = "rank " + std::to_string(rank) + " element " + std::to_string(e) + ": got " + std::to_string(got) +
               ", expected " + std::to_string(want);
  }
  return wrong;
}

} // namespace collsim
