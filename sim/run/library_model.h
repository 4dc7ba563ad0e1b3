// The collective library between an algorithm and the network: how NCCL or
// HCCL actually move a buffer (nccl-facts.md, hccl-facts.md).
//
// A library runs a collective under one of its protocols. A protocol says
// - what share of each line on the wire is data (NCCL's LL: 4 B of data and
//   a 4 B flag in each 8 B line; LL128: 120 of 128 B; Simple: all of it);
// - its latencies: once per collective (base); per hop, on each message by
//   whether it crosses servers (NCCL's per-hop latencies: the time until its
//   receiver sees the data, while its sender goes on); per step, on the
//   device before each step (HCCL's task per step);
// - the most data one channel moves per second with it (one thread block
//   writing lines; 0 = only the links limit it), the share of its
//   channel's part of the links it can fill, and the most all channels of a
//   device move together;
// - its chunk: the bytes per rank of one loop (NCCL: its staging buffer per
//   channel, a few slots of it per step), and its wave: the data its threads
//   pass on at once when lines carry their own flags (the piece a tree
//   pipelines);
// - how many bytes a channel needs before the library uses another channel;
// - how many sends a channel may have in its peer's buffer (its slots: a
//   rank writes into a free slot of its peer and moves on; the peer gives
//   the slot back once it has taken the data);
// - the largest collective it runs (its switch point: 0 = any size).
// The library picks per size the protocol that finishes first (NCCL picks
// the one its cost model predicts fastest; collsim runs the candidates and
// keeps the fastest, which is what that model aims at), among those whose
// switch point the size has not passed, unless one is fixed (`protocol:`,
// NCCL_PROTO); and runs it as up to `channels` channels. Switch points say
// where a measured library changed protocols when its choice differs from
// the fastest (NCCL_DEBUG=INFO names each call's protocol; calibrate fits
// them).
//
// `ideal` (no protocols) is collsim's plain model: one channel unless asked,
// no chunk loops, the device's step overhead.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "sim/core/protocol.h"
#include "sim/core/units.h"

namespace collsim {

struct ProtocolModel {
  Protocol kind = Protocol::Simple;
  const char* name() const { return protocolName(kind); }
  double dataShare = 1;
  Time baseLatency = 0;
  Time hopIntra = 0;   // a message between devices of one server
  Time hopNetwork = 0; // a message that crosses servers
  Time stepOverhead = 0; // each step that communicates, on its device
  Bandwidth channelBandwidth = 0;
  // The share of its channel's links (simulate.cpp, channelShare) that one
  // channel's thread block fills with this protocol's lines; 0: a channel is
  // not held to a share (HCCL's copies are its DMA engines', not threads').
  double laneEfficiency = 1;
  // The most it moves for one device over all its channels together, as
  // bus bandwidth, by the cluster's servers: one, two, three or more (NCCL's
  // llMaxBws for LL, measured per GPU generation on one node and per CPU
  // vendor across nodes); 0: no such ceiling. Each of a run's channels gets
  // its part of it.
  std::array<Bandwidth, 3> busBandwidth{};
  Bandwidth busBandwidthFor(int servers) const { return busBandwidth[std::clamp(servers, 1, 3) - 1]; }
  Bytes chunk = 0;
  // The data a channel's threads forward at once, a line each, as their
  // lines land (LL: each thread waits for its own line's flag and passes
  // it on): the piece that algorithms pipelining pieces of their own
  // (trees, hierpipe) cut, in place of the chunk. 0: the chunk.
  Bytes wave = 0;
  // A channel per this many bytes (plus per rank times the rank count, for
  // algorithms that cut a channel's part into a piece per rank), as NCCL's
  // thread thresholds do; at least min_channels.
  Bytes channelBytes = 0;
  Bytes channelBytesPerRank = 0;
  int slots = 0; // per peer; 0: each send holds its step until delivered
  // Whether algorithms that reduce in a switch (nvls, sharp) run under it:
  // NCCL runs NVLS and its tree with Simple only.
  bool inNetwork = true;
  // The largest collective (bytes per rank's buffer) the library runs with
  // this protocol; 0: any.
  Bytes maxBytes = 0;
};

// Which library's behaviour a cluster runs with: none (ideal), NCCL's or
// HCCL's. Its name exists only at input and output (libraryName).
enum class LibraryKind : std::uint8_t { Ideal, Nccl, Hccl };
const char* libraryName(LibraryKind k); // "ideal", "nccl", "hccl"

struct LibraryModel {
  LibraryKind kind = LibraryKind::Ideal;
  const char* name() const { return libraryName(kind); }
  Time launch = 0;            // per collective and device: the host launching it
  int channels = 1;           // the most (NCCL_MAX_NCHANNELS)
  int minChannels = 1;        // NCCL_MIN_NCHANNELS
  // The device's compute units (SMs) a channel's kernel holds while a
  // collective runs, taken from any computation beside it: NCCL runs a
  // thread block a channel; HCCL moves data with DMA engines (0).
  int computeUnitsPerChannel = 0;
  // The chunk of in-network algorithms (nvls, sharp and hierarchies with
  // them), which pipeline slices of their own: NCCL_NVLS_CHUNKSIZE, where
  // NCCL's chunk ladders start (in_network_chunk.h). 0: the protocol's chunk.
  Bytes nvlsChunk = 0;
  // Whether NVLS and its tree size their chunks as NCCL does, by release,
  // node count and size (in_network_chunk.h), or slice by nvlsChunk at
  // every size. Off by default: collsim's pipeline runs a piece's way up
  // and down the tree as one stage where NCCL's kernel splits them, so
  // NCCL's smaller chunks cost too much across many nodes and, lacking a
  // per-chunk cost, too little in mid sizes (docs/hardware.md, "NCCL's
  // chunk ladders").
  bool chunkLadder = false;
  // The NVLS tree's largest chunk under the ladder (NCCL_NVLSTREE_MAX_CHUNKSIZE,
  // NCCL 2.20+); 0: NCCL's rule, 64 KiB from 4 nodes.
  Bytes nvlsTreeMaxChunk = 0;
  // The latency of a collective that reduces in a server's switch (NVLS),
  // in place of its protocol's base latency (NCCL's model counts NVLS as one
  // 25 us hop over NVLink where a ring counts a few us a step); SHARP in the
  // fabric alone keeps the protocol's. 0: the protocol's.
  Time nvlsLatency = 0;
  // The library's release as 2.x's x (NCCL 2.26: 26), whose tuning model
  // picks what runs (sim/nccl/nccl_tuning.h); 0: the newest modelled.
  int version = 0;
  // The protocols it may run, as NCCL_PROTO allows them (library_config.cpp
  // reads "auto", one, a list "LL,LL128" or all but a list "^LL128").
  ProtocolSet protocol;
  std::vector<ProtocolModel> protocols; // empty: ideal
  bool ideal() const { return protocols.empty(); }
  const ProtocolModel* find(Protocol kind) const;
  // The protocols `protocol` allows, in the library's order.
  std::vector<const ProtocolModel*> candidates() const;
  // Those of them whose switch point `bytes` has not passed; past every
  // one, the one that reaches furthest.
  std::vector<const ProtocolModel*> candidatesFor(Bytes bytes) const;
  // Whether one of them runs in-network algorithms (always, when ideal).
  bool allowsInNetwork() const;
  // How many channels `protocol` uses for `bytes` cut into a piece per
  // rank of `ranks` (1: an algorithm that pipelines the whole part).
  int channelsFor(const ProtocolModel& protocol, Bytes bytes, int ranks) const;
};

// The share of a device with `computeUnits` that a large collective's
// kernels take from computation running beside it (all channels'; 0 when
// the library computes nothing there or the device's units are unknown).
double collectiveComputeShare(const LibraryModel& library, int computeUnits);

// The named defaults: ideal, nccl, hccl (their sources in the .cpp).
bool libraryPreset(const std::string& name, LibraryModel& out);
std::vector<std::string> libraryPresetNames();

} // namespace collsim
