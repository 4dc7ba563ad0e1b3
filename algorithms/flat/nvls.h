// In-network reduction (NVLink SHARP on an NVSwitch, InfiniBand SHARP): the
// mesh algorithms with their sends marked for a switch that reduces and
// multicasts (schedule.h, InNetwork). ReduceScatter: every rank sends block
// j towards rank j, the switch adds the p-1 copies and delivers one.
// AllGather: every rank uploads its block once, the switch copies it to the
// p-1 others. AllReduce: the two, over 4 slices in a pipeline (slice k's
// reduce-scatter overlaps slice k-1's all-gather). Each device moves about n bytes each way
// instead of a ring's 2(p-1)/p n (nccl-facts.md: 8 x H100, ~480 GB/s bus
// bandwidth with NVLS against ~370 without).
//
// As a schedule these are the mesh algorithms (the checker and the real
// transports run them as such); only a simulated network with a reducing
// switch between the ranks combines the sends: a server's (`hccs: {shape:
// switch, reduce: true}`, NVLS) between its devices, the fabric's (`fabric:
// {type: switch, reduce: true}`, SHARP) between servers. "sharp" names the
// same algorithms for the level between servers (hier:nvls+sharp).
#pragma once

#include "algorithms/core/registry.h"

namespace collsim {

AlgorithmEntry nvlsReduceScatterEntry();
AlgorithmEntry nvlsAllGatherEntry();
AlgorithmEntry nvlsAllReduceEntry();
// `nvls` as "sharp": reduced in the fabric's switch, between servers; its
// AllReduce unsliced, one stream, to be a hierarchy's level.
AlgorithmEntry sharpEntry(const AlgorithmEntry& nvls);

} // namespace collsim
