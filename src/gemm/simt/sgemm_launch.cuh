// Launchers of one SGEMM kernel configuration and transpose pair, plain or fault-tolerant.
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

// Blocks of the FT redo pass: tiles to compute again are rare, so a few blocks walk the list.
constexpr unsigned kRedoBlocks = 64;

// Launches one configuration for one transpose pair without checksums.
template <class Cfg, bool kTransA, bool kTransB>
cudaError_t launch_sgemm_simt(const GemmParams<float>& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                  static_cast<unsigned>(p.split_k));
  constexpr auto plain = sgemm_simt_kernel<Cfg, kTransA, kTransB>;
  const cudaError_t attr = allow_shared_memory<plain, Cfg::kSmemBytes>();
  if (attr != cudaSuccess) return attr;
  plain<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Launches the general FT kernel (verify intervals, faults to inject, the redo pass) on
// `blocks` thread blocks. Its instances live in files of their own
// (instances/sgemm_ft_general_instance.cu.in; the fast launcher below sees only a
// declaration), so that the build can give the two kernels different ptxas options.
template <class Cfg, bool kTransA, bool kTransB, FtLevel kLevel>
cudaError_t launch_sgemm_simt_ft_general(const GemmParams<float>& p, unsigned blocks,
                                         cudaStream_t stream) {
  constexpr int kSmemBytes = FtBlock<Cfg, kTransA, kTransB, kLevel>::kSmemBytes;
  constexpr auto general = sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, true, kLevel>;
  const cudaError_t attr = allow_shared_memory<general, kSmemBytes>();
  if (attr != cudaSuccess) return attr;
  general<<<blocks, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Launches the fast FT kernel (no verify interval, no faults to inject) over every tile. For
// some levels and transpose pairs it is compiled in a file of its own
// (instances/sgemm_ft_fast_instance.cu.in), so that the build can give it its own ptxas
// options; the launcher below then sees an `extern template` declaration.
template <class Cfg, bool kTransA, bool kTransB, FtLevel kLevel>
cudaError_t launch_sgemm_simt_ft_fast(const GemmParams<float>& p, cudaStream_t stream) {
  constexpr int kSmemBytes = FtBlock<Cfg, kTransA, kTransB, kLevel>::kSmemBytes;
  const unsigned tiles = static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n);
  constexpr auto fast = sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, false, kLevel>;
  const cudaError_t attr = allow_shared_memory<fast, kSmemBytes>();
  if (attr != cudaSuccess) return attr;
  fast<<<tiles, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Launches one configuration for one transpose pair with fused checksums of one level (no
// split-K). Calls with a verify interval or faults to inject run the general FT kernel, the
// others the fast one and its redo pass.
template <class Cfg, bool kTransA, bool kTransB, FtLevel kLevel>
cudaError_t launch_sgemm_simt_ft(const GemmParams<float>& p, cudaStream_t stream) {
  const unsigned tiles = static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n);
  if (p.ft.num_faults > 0 || p.ft.verify_interval > 0)
    return launch_sgemm_simt_ft_general<Cfg, kTransA, kTransB, kLevel>(p, tiles, stream);
  // The fast kernel, then the redo pass over the tiles it listed (usually none: its blocks
  // find an empty list and leave).
  const cudaError_t err = launch_sgemm_simt_ft_fast<Cfg, kTransA, kTransB, kLevel>(p, stream);
  if (err != cudaSuccess) return err;
  GemmParams<float> redo = p;
  redo.ft.redo_pass = 1;
  return launch_sgemm_simt_ft_general<Cfg, kTransA, kTransB, kLevel>(
      redo, tiles < kRedoBlocks ? tiles : kRedoBlocks, stream);
}

}  // namespace aegis::gemm::simt
