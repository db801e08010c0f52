// Launcher of one SGEMM kernel configuration and transpose pair, plain or fault-tolerant.
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/simt/sgemm_ft_kernel.cuh"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// Raises the dynamic shared-memory limit of `Kernel` to kSmemBytes, once per kernel, when
// it needs more than the default 48 KB.
template <auto Kernel, int kSmemBytes>
cudaError_t allow_shared_memory() {
  if constexpr (kSmemBytes > 48 * 1024) {
    static const cudaError_t attr =
        cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    return attr;
  }
  return cudaSuccess;
}

// Launches one configuration for one transpose pair (FT calls with faults to inject run the
// FT instance that injects them).
template <class Cfg, bool kTransA, bool kTransB, bool kFt = false>
cudaError_t launch_sgemm_simt(const GemmParams<float>& p, cudaStream_t stream) {
  void (*kernel)(GemmParams<float>);
  constexpr int kSmemBytes = kFt ? FtBlock<Cfg, kTransA, kTransB>::kSmemBytes : Cfg::kSmemBytes;
  cudaError_t attr;
  if constexpr (kFt) {
    constexpr auto clean = sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, false>;
    constexpr auto injecting = sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, true>;
    const bool inject = p.ft.num_faults > 0;
    kernel = inject ? injecting : clean;
    attr = inject ? allow_shared_memory<injecting, kSmemBytes>()
                  : allow_shared_memory<clean, kSmemBytes>();
  } else {
    kernel = sgemm_simt_kernel<Cfg, kTransA, kTransB>;
    attr = allow_shared_memory<sgemm_simt_kernel<Cfg, kTransA, kTransB>, kSmemBytes>();
  }
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                  static_cast<unsigned>(p.split_k));
  kernel<<<grid, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace aegis::gemm::simt
