#include "sim/validation/kernel_class.h"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace collsim {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

bool holdsAny(const std::string& text, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return text.find(w) != std::string::npos; });
}

} // namespace

const char* kernelClassName(KernelClass c) {
  switch (c) {
  case KernelClass::Gemm: return "gemm";
  case KernelClass::Attention: return "attention";
  case KernelClass::Memory: return "memory";
  case KernelClass::Communication: return "communication";
  }
  return "?";
}

KernelClass classifyKernel(const std::string& name, const std::string& type, const std::string& taskType) {
  const std::string text = lower(name + " " + type), task = lower(taskType);
  if (task == "hccl" || task == "communication" || holdsAny(text, {"nccl", "hcom", "hccl"}))
    return KernelClass::Communication;
  if (holdsAny(text, {"flash", "fmha", "sdpa", "_attn", "attention"})) return KernelClass::Attention;
  if (holdsAny(text, {"gemm", "matmul", "xmma", "cutlass", "nvjet", "cublas", "triton_tem", "conv2d", "convolution"}))
    return KernelClass::Gemm;
  return KernelClass::Memory;
}

} // namespace collsim
