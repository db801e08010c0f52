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

// Whether every tile of the call is whole, every K range a whole number of KTB slices and
// both operands 16-byte aligned: the interior kernel's contract (sgemm_simt_kernel).
inline bool sgemm_all_interior(const GemmParams<float>& p, int mtb, int ntb, int ktb) {
  return p.a_vec && p.b_vec && p.m % mtb == 0 && p.n % ntb == 0 && p.k % ktb == 0 &&
         p.k_per_split % ktb == 0;
}

// Launches one kernel of one configuration and transpose pair without checksums.
template <class Cfg, bool kTransA, bool kTransB, bool kInterior>
cudaError_t launch_sgemm_simt_kernel(const GemmParams<float>& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                  static_cast<unsigned>(p.split_k));
  constexpr auto plain = sgemm_simt_kernel<Cfg, kTransA, kTransB, kInterior>;
  const cudaError_t attr = allow_shared_memory<plain, Cfg::kSmemBytes>();
  if (attr != cudaSuccess) return attr;
  plain<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Launches one configuration for one transpose pair without checksums: its interior kernel
// where the configuration has one (kHasInterior, src/CMakeLists.txt) and the call allows it,
// the general kernel otherwise.
template <class Cfg, bool kTransA, bool kTransB, bool kHasInterior = false>
cudaError_t launch_sgemm_simt(const GemmParams<float>& p, cudaStream_t stream) {
  if constexpr (kHasInterior) {
    if (sgemm_all_interior(p, Cfg::kMTB, Cfg::kNTB, Cfg::kKTB))
      return launch_sgemm_simt_kernel<Cfg, kTransA, kTransB, true>(p, stream);
  }
  return launch_sgemm_simt_kernel<Cfg, kTransA, kTransB, false>(p, stream);
}

// Launches one FT kernel on `blocks` thread blocks: the general one (kGeneral: verify
// intervals, faults to inject, the redo pass) or the fast one. Their instances live in files
// of their own (instances/sgemm_ft_kernels_instance.cu.in; the launcher below sees only
// declarations), so that the build can give them their own ptxas options: the general
// kernels and, for some tiles and transpose pairs, the fast ones (src/CMakeLists.txt).
// kInterior: the fast kernel's interior instance (sgemm_all_interior).
template <class Cfg, bool kTransA, bool kTransB, bool kGeneral, FtLevel kLevel,
          bool kInterior = false>
cudaError_t launch_sgemm_simt_ft_kernel(const GemmParams<float>& p, unsigned blocks,
                                        cudaStream_t stream) {
  constexpr int kSmemBytes = FtBlock<Cfg, kTransA, kTransB, kLevel>::kSmemBytes;
  constexpr auto kernel =
      sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, kGeneral, kLevel, kInterior>;
  const cudaError_t attr = allow_shared_memory<kernel, kSmemBytes>();
  if (attr != cudaSuccess) return attr;
  kernel<<<blocks, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// Launches one configuration for one transpose pair with fused checksums of one level (no
// split-K). Calls with a verify interval or faults to inject run the general FT kernel, the
// others the fast one (its interior instance where the configuration has one, kHasInterior,
// and the call allows it) and its redo pass.
template <class Cfg, bool kTransA, bool kTransB, FtLevel kLevel, bool kHasInterior = false>
cudaError_t launch_sgemm_simt_ft(const GemmParams<float>& p, cudaStream_t stream) {
  const unsigned tiles = static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n);
  if (p.ft.num_faults > 0 || p.ft.verify_interval > 0)
    return launch_sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, true, kLevel>(p, tiles, stream);
  // The fast kernel, then the redo pass over the tiles it listed (usually none: its blocks
  // find an empty list and leave).
  cudaError_t err;
  if (kHasInterior && sgemm_all_interior(p, Cfg::kMTB, Cfg::kNTB, Cfg::kKTB))
    err = launch_sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, false, kLevel, kHasInterior>(
        p, tiles, stream);
  else
    err = launch_sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, false, kLevel>(p, tiles, stream);
  if (err != cudaSuccess) return err;
  GemmParams<float> redo = p;
  redo.ft.redo_pass = 1;
  return launch_sgemm_simt_ft_kernel<Cfg, kTransA, kTransB, true, kLevel>(
      redo, tiles < kRedoBlocks ? tiles : kRedoBlocks, stream);
}

}  // namespace aegis::gemm::simt
