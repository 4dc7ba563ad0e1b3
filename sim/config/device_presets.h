// The devices a cluster file can name (`device: {name: h100-sxm5-80gb}`),
// each with its own peak rates, memory and what its kernels reach, and the
// source of every figure (device_presets.cpp). A cluster without `device:`
// gets ascend-910, the seed article's NPU; any figure can still be set
// beside the name (`device: {name: a100-sxm4-80gb, memory: 40GiB}`).
#pragma once

#include <string>
#include <vector>

#include "topologies/cluster.h"

namespace collsim {

struct DevicePreset {
  const char* name;
  const char* description;
  DeviceModel device;
};

const std::vector<DevicePreset>& devicePresets();
const DevicePreset* findDevicePreset(const std::string& name);
const DevicePreset& defaultDevicePreset(); // ascend-910

} // namespace collsim
