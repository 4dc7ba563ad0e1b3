// Channels: an algorithm run as C independent copies, each on 1/C of the
// buffer and on its own stream, as NCCL runs a collective over several rings
// (nccl-facts.md). Channel k visits the devices of each server starting k
// places further on, so a flat ring leaves and enters each server through a
// different device, and with a NIC per device through a different NIC; on
// one server it starts k ranks further on. AllReduce only for now: every
// rank ends with the whole result, whatever order a channel visits them in.
#pragma once

#include <string>

#include "algorithms/core/registry.h"

namespace collsim {

// `entry` as `channels` channels (the entry itself when channels is 1).
AlgorithmEntry withChannels(const AlgorithmEntry& entry, int channels);

// The global rank at local index i of channel k (rotated within servers of
// `devicesPerServer` devices, or over all ranks when that is 0).
int channelMember(int i, int k, int ranks, int devicesPerServer);

} // namespace collsim
