#include "algorithms/transports/mpi/mpi_transport.h"

#include <climits>
#include <string>
#include <thread>

namespace collsim {

MpiTransport::MpiTransport(MPI_Comm comm, int space) : comm_(comm), tag_(space) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
}

MpiTransport::~MpiTransport() {
  // Requests still open after a failure: cancel them so MPI can finish.
  for (MPI_Request& r : requests_) {
    if (r == MPI_REQUEST_NULL) continue;
    MPI_Cancel(&r);
    MPI_Request_free(&r);
  }
}

int MpiTransport::tagFor(std::uint64_t op, int stream) {
  // MPI guarantees tags up to at least 32767: 4096 operations x 8 streams.
  return int(op % 4096) * 8 + stream % 8;
}

static int count(std::size_t bytes) {
  if (bytes > std::size_t(INT_MAX)) throw TransportError("messages over 2 GiB are not supported by the MPI transport");
  return int(bytes);
}

void MpiTransport::postSend(int peer, std::uint64_t, const std::byte* data, std::size_t bytes) {
  requests_.emplace_back();
  MPI_Isend(data, count(bytes), MPI_BYTE, peer, tag_, comm_, &requests_.back());
}

void MpiTransport::postRecv(int peer, std::uint64_t, std::byte* data, std::size_t bytes) {
  requests_.emplace_back();
  MPI_Irecv(data, count(bytes), MPI_BYTE, peer, tag_, comm_, &requests_.back());
}

void MpiTransport::waitAll(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int done = 0;
    MPI_Testall(int(requests_.size()), requests_.data(), &done, MPI_STATUSES_IGNORE);
    if (done) break;
    if (std::chrono::steady_clock::now() > deadline)
      throw PeerTimeout("MPI requests still open after " +
                           std::to_string(timeout.count()) + " ms (a peer never answered)");
    std::this_thread::yield();
  }
  requests_.clear();
}

} // namespace collsim
