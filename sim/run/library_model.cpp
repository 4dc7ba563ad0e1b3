#include "sim/run/library_model.h"

#include <algorithm>

#include "sim/core/text_list.h"

namespace collsim {
namespace {

constexpr Time us(double v) { return Time(v * 1e6); }
constexpr Bandwidth GBps(double v) { return Bandwidth(v * 1e9); }

// NCCL 2.1x (src/graph/tuning.cc and src/include/device.h, ring AllReduce):
// - data share: LL line 8 B = 4 B data + 4 B flag; LL128 line 128 B = 120 B
//   data + 8 B flag; Simple moves plain buffers.
// - base latency 6.6 / 14.0 / 8.4 us; per-hop latency on NVLink 0.47 / 1.9 /
//   3.4 us, over the network 2.7 / 4.0 / 9.6 us.
// - per channel: at most its share of its device's links (simulate.cpp,
//   channelShare), of which LL fills half: NCCL's model counts a ring's LL
//   AllReduce at a quarter of the links' bus bandwidth, half of it flags
//   (data share) and half this lane efficiency. LL128 at most 16.7 GB/s
//   (ll128MaxBwPerCh, AllReduce); Simple no cap of its own.
// - chunk per loop and rank: Simple's 4 MiB buffer in 8 slots, 4 slots a
//   chunk (2 MiB); LL's 512 KiB of 16 B lines in 8 slots, a slot a chunk
//   (32 KiB of data); LL128's 4,915,200 B in 8 slots (576,000 B of data).
// - LL's wave: 512 threads (NCCL_LL_MAX_NTHREADS) each forward a 16 B line
//   of 8 B data as soon as its flag shows: 4 KiB, the piece a tree under LL
//   pipelines (a tree's store-and-forward of 32 KiB chunks would make each
//   hop wait for the whole chunk). LL128's lines also go as they land, but
//   how its 640 threads walk a step's 576,000 B is not in nccl-facts.md:
//   its trees keep the chunk.
// - a channel per 512 threads x 64 B (Simple), 640 x 8 B (LL128) or
//   512 x 8 B (LL): NCCL_*_THREAD_THRESHOLD; a ring's LL threshold is
//   multiplied by the rank count (tuning.cc: threadThresholds[RING][LL] *=
//   nRanks: a ring step moves a rank's piece of the channel's part), a
//   tree's is not.
// - up to 16 channels: NCCL builds 8-32 on NVSwitch nodes (nccl-facts.md).
// - a channel is a thread block, and a block runs on one SM (NCCL launches
//   its kernel with a block per channel): while a collective runs, its
//   channels' SMs are not the model's (compute_units_per_channel: 1).
// - slots: NCCL_STEPS = 8 slots per channel and peer; LL and LL128 move a
//   slot a step (8 steps ahead), Simple a chunk of 4 slots (2 ahead).
// - launch 4.2 us a device: the host's cost of launching a collective on one
//   device. nccl-tests on a DGX-A100 with one thread driving N GPUs (-g N,
//   Ring, 1 channel, 8 B) took 13.8, 16.9, 20.8, 25.2, 29.5 and 33.7 us on
//   3-8 GPUs (NVIDIA/nccl-tests issue #123): 4.2 us per GPU, while NCCL's
//   model puts the devices' own time at 7.5-13.2 us. Calibrate fits it.
// - NVLS and NVLS tree run with Simple only (NCCL disables LL and LL128
//   for them in its tuning).
// - NVLS moves 128 KiB chunks (NCCL_NVLS_CHUNKSIZE, NCCL 2.17+), a loop being
//   a chunk per head (device of the node).
// - NVLS and NVLS tree: 25 us over NVLink (hwLat[NVLINK][NVLS][Simple], base
//   latency 0, NCCL 2.19+ tuning.cc), where the ring's Simple has 8.4 us and
//   3.4 a step: NVLS's multimem operations and their barriers across the
//   switch. It is why NCCL keeps Ring/LL up to 1 MiB on one H100 node and
//   NVLS from 2 MiB (nccl-tests issue #309).
LibraryModel ncclLibrary() {
  LibraryModel m;
  m.kind = LibraryKind::Nccl;
  m.launch = us(4.2);
  m.channels = 16;
  m.computeUnitsPerChannel = 1;
  m.nvlsChunk = 128 << 10;
  m.nvlsLatency = us(25);
  m.protocols = {
      {.kind = Protocol::LL, .dataShare = 0.5, .baseLatency = us(6.6), .hopIntra = us(0.47), .hopNetwork = us(2.7),
       .laneEfficiency = 0.5, .chunk = 32 << 10, .wave = 4 << 10, .channelBytesPerRank = 4 << 10, .slots = 8,
       .inNetwork = false},
      {.kind = Protocol::LL128, .dataShare = 120.0 / 128.0, .baseLatency = us(14.0), .hopIntra = us(1.9), .hopNetwork = us(4.0),
       .channelBandwidth = GBps(16.7), .chunk = 576000, .channelBytes = 5 << 10, .slots = 8, .inNetwork = false},
      {.kind = Protocol::Simple, .baseLatency = us(8.4), .hopIntra = us(3.4), .hopNetwork = us(9.6), .chunk = 2 << 20,
       .channelBytes = 32 << 10, .slots = 2},
  };
  return m;
}

// HCCL: one protocol moving plain buffers, a 13 us static latency per step
// (the constant of HCCL's own cost model, hccl-facts.md), one stream per
// ring, its copies made by DMA engines: the links alone limit them. Data larger than HCCL_BUFFSIZE runs in loops of it through the HCCL
// settings (simulation loop bytes), not through a chunk here.
LibraryModel hcclLibrary() {
  LibraryModel m;
  m.kind = LibraryKind::Hccl;
  m.protocols = {{.kind = Protocol::Simple, .stepOverhead = us(13), .laneEfficiency = 0}};
  return m;
}

} // namespace

const ProtocolModel* LibraryModel::find(Protocol kind) const {
  for (const auto& p : protocols)
    if (p.kind == kind) return &p;
  return nullptr;
}

std::vector<const ProtocolModel*> LibraryModel::candidates() const {
  std::vector<const ProtocolModel*> out;
  for (const auto& p : protocols)
    if (protocol.has(p.kind)) out.push_back(&p);
  return out;
}

std::vector<const ProtocolModel*> LibraryModel::candidatesFor(Bytes bytes) const {
  std::vector<const ProtocolModel*> allowed = candidates(), out;
  for (const ProtocolModel* p : allowed)
    if (p->maxBytes == 0 || bytes <= p->maxBytes) out.push_back(p);
  if (!out.empty() || allowed.empty()) return out;
  auto furthest = std::max_element(allowed.begin(), allowed.end(),
                                   [](const ProtocolModel* a, const ProtocolModel* b) { return a->maxBytes < b->maxBytes; });
  return {*furthest};
}

bool LibraryModel::allowsInNetwork() const {
  if (ideal()) return true;
  for (const ProtocolModel* p : candidates())
    if (p->inNetwork) return true;
  return false;
}

double collectiveComputeShare(const LibraryModel& library, int computeUnits) {
  if (computeUnits <= 0 || library.computeUnitsPerChannel <= 0) return 0;
  return std::min(1.0, double(library.channels) * library.computeUnitsPerChannel / computeUnits);
}

int LibraryModel::channelsFor(const ProtocolModel& p, Bytes bytes, int ranks) const {
  Bytes per = p.channelBytes + p.channelBytesPerRank * Bytes(ranks);
  Bytes wanted = per == 0 ? Bytes(channels) : bytes / per;
  return int(std::clamp<Bytes>(wanted, Bytes(std::max(1, minChannels)), Bytes(std::max(minChannels, channels))));
}

const char* libraryName(LibraryKind k) {
  switch (k) {
  case LibraryKind::Ideal: return "ideal";
  case LibraryKind::Nccl: return "nccl";
  case LibraryKind::Hccl: return "hccl";
  }
  return "?";
}

bool libraryPreset(const std::string& name, LibraryModel& out) {
  if (name == "ideal") out = LibraryModel{};
  else if (name == "nccl") out = ncclLibrary();
  else if (name == "hccl") out = hcclLibrary();
  else return false;
  return true;
}

std::vector<std::string> libraryPresetNames() {
  return {libraryName(LibraryKind::Ideal), libraryName(LibraryKind::Nccl), libraryName(LibraryKind::Hccl)};
}

} // namespace collsim
