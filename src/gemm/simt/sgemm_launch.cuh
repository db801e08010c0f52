// Launcher of one SGEMM kernel configuration and transpose pair, plain or fault-tolerant.
#pragma once

#include <array>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "gemm/simt/sgemm_ft_kernel.cuh"
#include "gemm/simt/sgemm_kernel.cuh"

namespace aegis::gemm::simt {

// Raises a kernel's dynamic shared-memory limit once, when it needs more than the default
// 48 KB.
template <auto kKernel, int kSmemBytes>
cudaError_t allow_dynamic_smem() {
  if constexpr (kSmemBytes > 48 * 1024) {
    static const cudaError_t attr = cudaFuncSetAttribute(
        kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    return attr;
  }
  return cudaSuccess;
}

// A cluster-split launch: grid (tiles, split), one cluster per tile of `split` blocks.
template <class Cfg, bool kTransA, bool kTransB>
cudaError_t launch_cluster_split(const GemmParams<float>& p, cudaStream_t stream) {
  constexpr auto kKernel = sgemm_simt_kernel<Cfg, kTransA, kTransB>;
  const cudaError_t attr = allow_dynamic_smem<kKernel, Cfg::kClusterSmemBytes>();
  if (attr != cudaSuccess) return attr;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                        static_cast<unsigned>(p.split_k));
  config.blockDim = dim3(Cfg::kThreads);
  config.dynamicSmemBytes = Cfg::kClusterSmemBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = static_cast<unsigned>(p.split_k);
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kKernel, p);
}

// Launches one configuration for one transpose pair. The fault-tolerant kernel is built
// from the plain tile (Cfg::Plain): it never splits K, so the cluster and prefetch options
// have nothing to act on there.
template <class Cfg, bool kTransA, bool kTransB, bool kFt = false>
cudaError_t launch_sgemm_simt(const GemmParams<float>& p, cudaStream_t stream) {
  if constexpr (Cfg::kClusterSplit && !kFt) {
    if (p.split_k > 1) return launch_cluster_split<Cfg, kTransA, kTransB>(p, stream);
  }
  using KernelCfg = std::conditional_t<kFt, typename Cfg::Plain, Cfg>;
  constexpr auto kKernel = [] {
    if constexpr (kFt)
      return sgemm_simt_ft_kernel<KernelCfg, kTransA, kTransB>;
    else
      return sgemm_simt_kernel<KernelCfg, kTransA, kTransB>;
  }();
  constexpr int kSmemBytes =
      kFt ? FtBlock<KernelCfg, kTransA, kTransB>::kSmemBytes : KernelCfg::kSmemBytes;
  // One limit per kernel, the largest of its launches (a smaller one set later would break
  // the cluster launches).
  constexpr int kLimitBytes = KernelCfg::kClusterSplit ? KernelCfg::kClusterSmemBytes : kSmemBytes;
  const cudaError_t attr = allow_dynamic_smem<kKernel, kLimitBytes>();
  if (attr != cudaSuccess) return attr;
  const dim3 grid(static_cast<unsigned>(p.tiles_m) * static_cast<unsigned>(p.tiles_n),
                  static_cast<unsigned>(p.split_k));
  kKernel<<<grid, Cfg::kThreads, kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

// How many clusters of `split` blocks of this configuration the device can hold at once
// (cudaOccupancyMaxActiveClusters), for split 0..kMaxClusterSplit; measured once per
// process on the current device. -1 where the runtime cannot say (no device): callers then
// do not limit the split.
template <class Cfg>
int co_resident_clusters(int split) {
  static const std::array<int, Cfg::kMaxClusterSplit + 1> counts = [] {
    std::array<int, Cfg::kMaxClusterSplit + 1> c{};
    c.fill(-1);
    constexpr auto kKernel = sgemm_simt_kernel<Cfg, false, false>;
    if (allow_dynamic_smem<kKernel, Cfg::kClusterSmemBytes>() != cudaSuccess) {
      cudaGetLastError();
      return c;
    }
    for (int s = 1; s <= Cfg::kMaxClusterSplit; ++s) {
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(s, s);
      config.blockDim = dim3(Cfg::kThreads);
      config.dynamicSmemBytes = Cfg::kClusterSmemBytes;
      cudaLaunchAttribute cluster{};
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = 1;
      cluster.val.clusterDim.y = static_cast<unsigned>(s);
      cluster.val.clusterDim.z = 1;
      config.attrs = &cluster;
      config.numAttrs = 1;
      int n = 0;
      if (cudaOccupancyMaxActiveClusters(&n, kKernel, &config) == cudaSuccess)
        c[s] = n;
      else
        cudaGetLastError();
    }
    return c;
  }();
  return split >= 0 && split <= Cfg::kMaxClusterSplit ? counts[split] : 0;
}

}  // namespace aegis::gemm::simt
