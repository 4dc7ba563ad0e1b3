#include "algorithms/transports/threads/threads_transport.h"

#include <cstring>
#include <string>

namespace collsim {

ThreadsWorld::ThreadsWorld(int size) : size_(size) {}

std::vector<ThreadsWorld::Delivery> ThreadsWorld::deliveries() const {
  std::lock_guard lock(mutex_);
  return deliveries_;
}

// Called with the mutex held once a send and its receive are both posted.
void ThreadsWorld::match(Pending& p, int src, int dst, std::uint64_t tag) {
  if (p.sendBytes != p.recvBytes) {
    errors_.push_back("rank " + std::to_string(src) + " sends " + std::to_string(p.sendBytes) + " bytes to rank " +
                      std::to_string(dst) + ", which receives " + std::to_string(p.recvBytes));
  } else if (p.sendBytes > 0) {
    std::memcpy(p.recvData, p.sendData, p.sendBytes);
  }
  deliveries_.push_back({src, dst, tag, p.sendBytes});
  --*p.recvDone;
  --*p.sendDone;
  pending_.erase({src, dst, tag});
  changed_.notify_all();
}

void ThreadsTransport::postSend(int peer, std::uint64_t tag, const std::byte* data, std::size_t bytes) {
  std::lock_guard lock(world_.mutex_);
  auto& p = world_.pending_[{rank_, peer, tag}];
  p.sendData = data;
  p.sendBytes = bytes;
  p.sendDone = &outstanding_;
  ++outstanding_;
  if (p.recvDone) world_.match(p, rank_, peer, tag);
}

void ThreadsTransport::postRecv(int peer, std::uint64_t tag, std::byte* data, std::size_t bytes) {
  std::lock_guard lock(world_.mutex_);
  auto& p = world_.pending_[{peer, rank_, tag}];
  p.recvData = data;
  p.recvBytes = bytes;
  p.recvDone = &outstanding_;
  ++outstanding_;
  if (p.sendDone) world_.match(p, peer, rank_, tag);
}

void ThreadsTransport::waitAll(std::chrono::milliseconds timeout) {
  std::unique_lock lock(world_.mutex_);
  bool done = world_.changed_.wait_for(lock, timeout, [&] { return outstanding_ == 0 || !world_.errors_.empty(); });
  if (!world_.errors_.empty()) throw TransportError(world_.errors_.front());
  if (!done)
    throw PeerTimeout("rank " + std::to_string(rank_) + ": " + std::to_string(outstanding_) +
                         " request(s) still open after " + std::to_string(timeout.count()) + " ms (a peer never answered)");
}

} // namespace collsim
