// The MPI transport: the transport contract over MPI point-to-point
// messages (Isend/Irecv, never an MPI collective), across processes and
// machines.
//
// MPI matches messages between two ranks with the same tag in posting order,
// which is exactly the schedule's matching rule, so the schedule's own tag
// numbers are not sent; the MPI tag instead names the operation (`space`)
// so that back-to-back collectives never cross. One endpoint per stream of
// a rank (with MPI_THREAD_MULTIPLE).
#pragma once

#include <mpi.h>

#include <vector>

#include "algorithms/transports/transport.h"

namespace collsim {

class MpiTransport final : public Transport {
public:
  MpiTransport(MPI_Comm comm, int space);
  ~MpiTransport() override;
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void postSend(int peer, std::uint64_t tag, const std::byte* data, std::size_t bytes) override;
  void postRecv(int peer, std::uint64_t tag, std::byte* data, std::size_t bytes) override;
  void waitAll(std::chrono::milliseconds timeout) override;

  // The MPI tag of operation `op`, stream `stream` (within MPI_TAG_UB).
  static int tagFor(std::uint64_t op, int stream);

private:
  MPI_Comm comm_;
  int rank_, size_, tag_;
  std::vector<MPI_Request> requests_;
};

} // namespace collsim
