// The transport contract: what a real executor needs to run a schedule.
//
// Deliberately narrow (compare Gloo's transport): post a send or a receive
// of a byte range to or from one peer under a tag, then wait for all posted
// requests with a timeout. Tags are unique per (peer, direction) within one
// collective; messages with the same tag between the same pair never occur.
// A send's bytes must stay valid until the wait returns. Implementations:
// threads/ (one thread per rank, in one process) and MPI (see docs/mpi.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

namespace collsim {

// The transport failed, or (PeerTimeout) a peer did not answer in time.
struct TransportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct PeerTimeout : TransportError {
  using TransportError::TransportError;
};

class Transport {
public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void postSend(int peer, std::uint64_t tag, const std::byte* data, std::size_t bytes) = 0;
  virtual void postRecv(int peer, std::uint64_t tag, std::byte* data, std::size_t bytes) = 0;
  // Returns when every request posted since the last wait has completed;
  // throws PeerTimeout when `timeout` passes first.
  virtual void waitAll(std::chrono::milliseconds timeout) = 0;
};

} // namespace collsim
