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

const std::vector<DeviceModel>& devicePresets();
std::vector<std::string> devicePresetNames();
const DeviceModel* findDevicePreset(const std::string& name); // by DeviceModel::name
const DeviceModel& defaultDevice();                           // ascend-910
// The attention kernels a model can name; a device has figures for some.
const std::vector<std::string>& attentionKernelNames();

} // namespace collsim
