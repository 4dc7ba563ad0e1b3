// Inputs and expected results of a collective on real data, for any
// transport. Rank r's element i starts as a small integer derived from r and
// i, so sums (and max/min) are exact in every type and a misplaced element
// shows up as a wrong value. Elements a rank does not own at the start hold
// a sentinel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "algorithms/core/schedule.h"
#include "algorithms/transports/reduction.h"

namespace collsim {

class ReferenceData {
public:
  ReferenceData(const CollectiveSpec& spec, DataType type, ReduceOp op);

  // Writes rank's initial buffer (spec.bufferBytes() bytes).
  void fill(int rank, std::byte* buffer) const;
  // Counts the elements of rank's final buffer that differ from the
  // collective's definition; describes the first one in `first`.
  std::uint64_t countWrong(int rank, const std::byte* buffer, std::string* first) const;

private:
  double input(int rank, std::uint64_t element) const;
  double reduced(std::uint64_t element) const;
  // The expected value of element e of rank's buffer; false if unspecified.
  bool expected(int rank, std::uint64_t e, double& value) const;
  double sentinel() const;
  void store(std::byte* buffer, std::uint64_t e, double v) const;
  double load(const std::byte* buffer, std::uint64_t e) const;

  CollectiveSpec spec_;
  DataType type_;
  ReduceOp op_;
};

} // namespace collsim
