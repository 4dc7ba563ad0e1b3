// Channels: an algorithm run as C independent copies, each on 1/C of the
// buffer and on its own stream, as NCCL runs a collective over several rings
// (nccl-facts.md). Channel k visits the devices of each server starting k
// places further on, so a flat ring leaves and enters each server through a
// different device, and with a NIC per device through a different NIC; on
// one server it starts k ranks further on. Given rings along a server's
// links (topologies/ring_orders.h), channel k visits each server's devices
// in ring k mod R's order instead, entered where the devices have been
// entered and left by the fewest channels so far (so that the channels'
// ends spread over the server's NICs, as NCCL's do). AllReduce
// only for now: every rank ends with the whole result, whatever order a
// channel visits them in.
#pragma once

#include <string>
#include <vector>

#include "algorithms/core/registry.h"

namespace collsim {

using ServerRings = std::vector<std::vector<int>>;

// `entry` as `channels` channels (the entry itself when channels is 1 and
// there are no rings).
AlgorithmEntry withChannels(const AlgorithmEntry& entry, int channels, const ServerRings& rings = {});

// The ranks of channel k by local index (rotated within servers of
// `devicesPerServer` devices, or over all ranks when that is 0; along
// `rings` when there are some), and the one at local index i.
std::vector<int> channelOrder(int k, int ranks, int devicesPerServer, const ServerRings& rings = {});
int channelMember(int i, int k, int ranks, int devicesPerServer, const ServerRings& rings = {});

} // namespace collsim
