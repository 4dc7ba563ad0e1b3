// The in-process transport: one thread per rank, messages handed over in
// shared memory. The correctness oracle for every algorithm: it moves and
// reduces real bytes through the same schedule the simulator times.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "algorithms/transports/transport.h"

namespace collsim {

// Shared state of one group of ranks (one per collective run).
class ThreadsWorld {
public:
  explicit ThreadsWorld(int size);
  int size() const { return size_; }

  // Every message handed over, as (source, destination, bytes), in the order
  // they matched; for tests that compare executors.
  struct Delivery {
    int src, dst;
    std::uint64_t tag;
    std::size_t bytes;
  };
  std::vector<Delivery> deliveries() const;

private:
  friend class ThreadsTransport;
  struct Pending {
    std::byte* recvData = nullptr;      // posted receive, if any
    const std::byte* sendData = nullptr; // posted send, if any
    std::size_t recvBytes = 0, sendBytes = 0;
    int* recvDone = nullptr; // counters of the ranks' outstanding requests
    int* sendDone = nullptr;
  };
  void match(Pending& p, int src, int dst, std::uint64_t tag); // both sides present

  int size_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::tuple<int, int, std::uint64_t>, Pending> pending_; // (src, dst, tag)
  std::vector<Delivery> deliveries_;
  std::vector<std::string> errors_;
};

class ThreadsTransport final : public Transport {
public:
  ThreadsTransport(ThreadsWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.size(); }
  void postSend(int peer, std::uint64_t tag, const std::byte* data, std::size_t bytes) override;
  void postRecv(int peer, std::uint64_t tag, std::byte* data, std::size_t bytes) override;
  void waitAll(std::chrono::milliseconds timeout) override;

private:
  ThreadsWorld& world_;
  int rank_;
  int outstanding_ = 0; // guarded by world_.mutex_
};

} // namespace collsim
