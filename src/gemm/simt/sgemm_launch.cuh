// Launcher of one SGEMM kernel configuration and transpose pair, plain or fault-tolerant.
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/simt/sgemm_ft_kernel.cuh"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// Launches one configuration for one transpose pair. Raises the dynamic shared-memory
// limit once per instance when the tile needs more than the default 48 KB.
template <class Cfg, bool kTransA, bool kTransB, bool kFt = false>
cudaError_t launch_sgemm_simt(const GemmParams<float>& p, cudaStream_t stream) {
  void (*kernel)(GemmParams<float>);
  if constexpr (kFt)
    kernel = sgemm_simt_ft_kernel<Cfg, kTransA, kTransB>;
  else
    kernel = sgemm_simt_kernel<Cfg, kTransA, kTransB>;
  constexpr int kSmemBytes = kFt ? FtBlock<Cfg, kTransA, kTransB>::kSmemBytes : Cfg::kSmemBytes;
  if (kSmemBytes > 48 * 1024) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    if (attr != cudaSuccess) return attr;
  }
  const dim3 grid(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                  static_cast<unsigned>(p.split_k));
  kernel<<<grid, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
