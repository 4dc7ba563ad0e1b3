#include "algorithms/transports/schedule_runner.h"

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace collsim {

void runScheduleRank(const Schedule& schedule, Transport& t, std::byte* buffer, const RunOptions& options,
                     std::uint64_t tagBase, StreamContext context) {
  const int me = t.rank();
  const std::size_t elem = dataTypeInfo(options.type).bytes;
  std::unordered_map<int, std::uint64_t> sent, received; // per peer: messages so far = next tag
  std::vector<Op> ops;
  std::vector<std::vector<std::byte>> staged; // per op: outgoing copy or incoming data
  for (int step = 0; step < schedule.stepCount(me); ++step) {
    ops.clear();
    schedule.appendOps(me, step, ops);
    staged.resize(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      std::vector<std::byte>& data = staged[i];
      switch (op.kind) {
      case OpKind::Send:
        data.assign(buffer + op.offset, buffer + op.offset + op.bytes);
        t.postSend(op.peer, tagBase + sent[op.peer]++, data.data(), data.size());
        break;
      case OpKind::Copy:
        data.assign(buffer + op.srcOffset, buffer + op.srcOffset + op.bytes);
        break;
      case OpKind::Recv:
      case OpKind::RecvReduce:
        data.resize(op.bytes);
        t.postRecv(op.peer, tagBase + received[op.peer]++, data.data(), data.size());
        break;
      case OpKind::Wait: break; // below, with the other stream's progress
      case OpKind::Compute:       // the device is busy: this thread stands in for it
        std::this_thread::sleep_for(std::chrono::nanoseconds(op.durationPs / 1000));
        break;
      }
    }
    for (const Op& op : ops) {
      if (op.kind != OpKind::Wait) continue;
      if (!context.progress) throw TransportError("a Wait operation needs the rank's stream progress");
      if (!context.progress->waitFor(op.peer, int(op.offset), options.timeout))
        throw PeerTimeout("rank " + std::to_string(me) + " stream " + std::to_string(context.stream) +
                             ": stream " + std::to_string(op.peer) + " did not reach step " +
                             std::to_string(op.offset) + " in time");
    }
    t.waitAll(options.timeout);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      if (op.bytes == 0) continue; // (memcpy wants real pointers, even for 0 bytes)
      if (op.kind == OpKind::Recv || op.kind == OpKind::Copy)
        std::memcpy(buffer + op.offset, staged[i].data(), op.bytes);
      else if (op.kind == OpKind::RecvReduce)
        reduceInto(buffer + op.offset, staged[i].data(), op.bytes / elem, options.type, options.op);
    }
    if (context.progress) context.progress->advance(context.stream);
  }
}

} // namespace collsim
