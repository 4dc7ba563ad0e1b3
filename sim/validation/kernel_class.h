// What kind of work a profiled kernel is, from its name (and, on Ascend,
// its operator type and task type), in the classes collsim's compute model
// times apart (sim/workload/layer_compute.h):
//   communication  a collective's kernel: NCCL's (ncclKernel_*,
//                  ncclDevKernel_*), HCCL's (task type HCCL, hcom_* / Hcom*)
//   attention      a fused attention kernel: FlashAttention's (flash_fwd_*,
//                  flash_bwd_*), xFormers' and cuDNN's (fmha, sdpa), Triton's
//                  (_attn_fwd), Ascend's FlashAttentionScore(Grad)
//   gemm           a matrix product or convolution on the tensor cores:
//                  cuBLAS and CUTLASS (gemm, xmma, cutlass, nvjet, cublas),
//                  Triton's templates (triton_tem_*), Ascend's MatMul,
//                  BatchMatMul, GroupedMatmul, Conv2D
//   memory         everything else: elementwise, norms, softmax, copies,
//                  reductions, the optimizer's kernels
// The first class whose words the name (or type) holds wins, in that order,
// case-insensitively.
#pragma once

#include <string>

namespace collsim {

enum class KernelClass { Gemm, Attention, Memory, Communication };
const char* kernelClassName(KernelClass c); // "gemm", "attention", "memory", "communication"

KernelClass classifyKernel(const std::string& name, const std::string& type = "", const std::string& taskType = "");

} // namespace collsim
