// NCCL's primitives as NPKit timed them, and the fixed cost of one
// pipeline step fitted from them: the measurement a user supplies for the
// cost per step that no source here gives (docs/hardware.md, "A cost per
// pipeline step").
//
// NPKit (github.com/microsoft/NPKit) instruments NCCL's kernels; its
// npkit_trace_generator.py writes the dump as Chrome trace-event JSON
// (npkit_event_trace.json): {"traceEvents": [...]} of "B" and "E" events,
// ts in microseconds, pid the rank, tid the lane (GPU: buffer index + 1;
// CPU: fiber + 1000 x (channel + 1)), cat "GPU" or "CPU"; a begin is named
// NPKIT_EVENT_<KIND>_ENTRY and carries args.size_0, the bytes of the call;
// an end has no name and closes the lane's latest open begin.
//
// A step is one call of one of NCCL's generic primitives (prims_simple.h:
// send, recvReduceCopySend, directRecv, ...; NPKit's events of the same
// names), which moves one chunk. Its time is a fixed part (the fence, the
// flag the peer polls, waiting for the peer's slot, the link's latency)
// and the chunk's bytes at the primitive's rate; the fit shares the fixed
// part among the primitives and gives each its own rate:
//   duration = fixed + bytes / rate_p      (least squares over every call)
// The collective's spans (ALL_REDUCE_RING_*, ...), the primitives' inner
// events (PRIM_SIMPLE_WAIT_PEER, ...) and the proxy's (NET_SEND, ...) are
// counted, not fitted.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace collsim {

struct NpkitCall {
  int kind = 0; // into NpkitTrace::kinds
  int rank = 0;
  double bytes = 0;
  double start = 0, end = 0; // microseconds
};

struct NpkitTrace {
  std::string file;
  std::vector<std::string> kinds; // event kinds, NPKIT_EVENT_ and _ENTRY taken off
  std::vector<NpkitCall> calls;   // every closed begin, primitives and others
  std::vector<int> ranks;
  std::size_t unclosed = 0;       // begins the dump ended before closing
};

// Throws InputError with the file and the event's index on anything it
// cannot read, and when the trace holds no NPKit event.
NpkitTrace parseNpkitTrace(const std::string& text, const std::string& file);
NpkitTrace readNpkitTrace(const std::string& path);

// Whether `kind` is one of NCCL's generic primitives (one call, one step).
bool isNpkitPrimitive(const std::string& kind);

struct PrimitiveFit {
  std::string kind;
  std::size_t calls = 0;
  double minBytes = 0, maxBytes = 0;
  double gbPerSecond = 0; // 0: its times do not grow with its bytes
  double rmsMicroseconds = 0;
};

struct StepCostFit {
  double fixedMicroseconds = 0; // shared by every primitive
  std::size_t calls = 0;
  std::vector<PrimitiveFit> primitives;
  std::vector<std::pair<std::string, std::size_t>> notFitted; // other kinds, with their counts
};

// Throws InputError when the trace has no primitive calls, or no primitive
// with two sizes (then the fixed part cannot be told from the bytes' time).
StepCostFit fitStepCost(const NpkitTrace& trace);

} // namespace collsim
