// How long one kernel takes on a device (DeviceModel): a roofline of the
// device's peak FLOPs and its memory bandwidth, each at the share its
// kernels reach, with the quantization that makes a GEMM's efficiency
// depend on its shape (NVIDIA, "Matrix Multiplication Background User's
// Guide"):
// - tile quantization: a GEMM computes its output in tiles of rows x
//   columns, so an m x n output costs ceil(m / rows) x ceil(n / columns)
//   whole tiles;
// - wave quantization: the device computes `computeUnits` tiles at once,
//   so tiles run in ceil(tiles / units) waves, the last one maybe part empty.
// A GEMM therefore takes max(waves x one tile's FLOPs x units / (peak x
// gemmEfficiency), its operands and result / (bandwidth x memoryEfficiency)).
// At the large, well-shaped sizes where gemmEfficiency was measured this is
// FLOPs / (peak x gemmEfficiency); a TP degree, micro-batch or sequence
// that leaves a GEMM thin or ragged makes it slower per FLOP, as on hardware.
#pragma once

#include <string>

#include "sim/core/units.h"
#include "topologies/cluster.h"

namespace collsim {

// `batch` independent m x k by k x n products of `elementBytes`-byte elements.
struct GemmShape {
  double m = 0, n = 0, k = 0, batch = 1;
};

// Seconds, so that sums of many kernels round once (see kernelTime).
double gemmSeconds(const DeviceModel& device, const GemmShape& g, int elementBytes);
// A kernel that moves `bytes` through memory (norms, activations, adds).
double memorySeconds(const DeviceModel& device, double bytes);
// Fused (flash) attention doing `flops`, forward or backward.
double attentionSeconds(const DeviceModel& device, double flops, bool backward);
// The device running the named attention kernel (DeviceModel::
// attentionKernels) in place of its own; "": unchanged. InputError when the
// device has no figures for it.
DeviceModel withAttentionKernel(const DeviceModel& device, const std::string& kernel);

// The FLOPs of a GEMM, 2 m n k per product.
inline double gemmFlops(const GemmShape& g) { return 2 * g.m * g.n * g.k * g.batch; }

} // namespace collsim
