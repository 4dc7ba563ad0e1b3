// A measured profile of training steps on one device, in the formats the
// profilers write, and where its steps' time went by kind of kernel
// (kernel_class.h), to set beside collsim's prediction.
//
// Formats, told apart by their content:
//   Chrome trace-event JSON ({"traceEvents": [...]} or a bare array):
//     - PyTorch's profiler (Kineto, torch.profiler's export_chrome_trace):
//       device kernels are the events of category kernel, gpu_memcpy and
//       gpu_memset, on the device their args.device (or pid) names; steps
//       are the ProfilerStep#N ranges, the device's (gpu_user_annotation)
//       when it has them, else the host's; other gpu_user_annotation
//       ranges (record_function) are the layers a kernel ran in.
//     - Ascend's msprof and torch_npu (msprof*.json, trace_view.json): the
//       events of the processes named "Ascend Hardware" (tasks; args "Task
//       Type") and "HCCL" (communication); ProfilerStep#N as above.
//   CSV with a header naming its columns:
//     - msprof's op summary (op_summary_*.csv: Op Name, OP Type, Task
//       Type, Task Start Time(us), Task Duration(us), Device_id), and
//       torch_npu's kernel_details.csv (Name, Type, Accelerator Core, Start
//       Time(us), Duration(us), Step Id: a step per id).
// Times are microseconds, as the formats write them. Without step marks
// the whole profile is one step. A profile of several devices keeps the
// one asked for (the lowest by default).
//
// Per step: each class's kernel time (kernels on several streams add up),
// the communication nothing computes beside (exposed), and the time no
// kernel runs (idle: launches, host work, waits); compute, exposed
// communication and idle make the step when no two compute kernels overlap.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/validation/kernel_class.h"
#include "sim/workload/step_simulation.h"

namespace collsim {

struct ProfileKernel {
  double start = 0, end = 0; // microseconds
  KernelClass kind = KernelClass::Memory;
  int name = 0;  // into Profile::names
};

struct ProfileRange {
  double start = 0, end = 0;
  std::string name;
};

struct Profile {
  std::string file, format; // format: "PyTorch profiler (Kineto) trace", ...
  int device = 0;            // the device kept
  std::vector<int> devices;  // every device the profile has
  std::vector<std::string> names;
  std::vector<ProfileKernel> kernels; // the device's, by start
  std::vector<ProfileRange> steps;    // ProfilerStep#N or Step Id windows; empty: one step
  std::vector<ProfileRange> layers;   // annotations on the device (record_function)
};

// What a profile may hold: larger ones are refused (profile fewer steps).
inline constexpr std::size_t kMaxProfileBytes = std::size_t(1) << 30;
inline constexpr std::size_t kMaxProfileKernels = std::size_t(20) << 20;

// `device` -1: the lowest the profile has. Throws ConfigError (with the
// file and the line, or the column of the CSV) on anything it cannot read.
Profile readProfile(const std::string& path, int device = -1);
Profile parseProfile(const std::string& text, const std::string& file, int device = -1);

// Seconds of one step, the mean over the profile's steps.
struct ProfileClasses {
  double gemm = 0, attention = 0, memory = 0; // compute kernels
  double communication = 0;                   // every collective kernel's time
  double exposed = 0;                         // collective kernels with no compute kernel beside them
  double idle = 0;                            // no kernel at all
  double step = 0;
};

struct KernelTotal {
  std::string name;
  KernelClass kind;
  int count = 0;     // per step
  double seconds = 0; // per step
};

struct LayerTotal {
  std::string name;
  int count = 0;             // ranges of this name per step
  ProfileClasses classes;    // their kernels, per step (step: the ranges' own time)
};

struct ProfileBreakdown {
  int steps = 1;
  ProfileClasses perStep;
  std::vector<KernelTotal> topKernels; // the longest, per class, most first
  std::vector<LayerTotal> layers;      // by name, most time first
};

ProfileBreakdown breakdownOf(const Profile& profile, std::size_t topPerClass = 5);

// A simulated step in the same classes, for the device it reports (the one
// that finished last under a layout): its compute by kind of kernel (the
// kernels' own times scaled to the compute the simulation ran, which
// collectives beside them slow down), the time it waited for
// communication (exposed), and its idle time: the framework's overhead
// (layer_overhead) and the pipeline's bubble. communication stays 0: the
// step does not say how long the device's collective kernels ran.
ProfileClasses predictedClasses(const StepResult& step);

} // namespace collsim
