// Host launcher of the sm90 GEMM kernel for one configuration and operand type: TMA
// descriptors for A and B, a persistent grid of at most one CTA per SM (in clusters of
// kClusterSize), and the kernel instance for the call's transpose pair.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "gemm/sm90/sm90_kernel.cuh"
#include "gemm/sm90/sm90_launch.h"
#include "gemm/sm90/tensor_map.h"

namespace aegis::gemm::sm90 {

// Streaming multiprocessors of the current device (cached per device).
int current_sm_count();

// Unit rows per band of the persistent tile order (tile_coords), for `concurrent` units of
// unit_m x unit_n running at once over unit_rows rows of units.
int choose_group_m(int unit_rows, int concurrent, int unit_m, int unit_n);

// Clusters of `kernel` launched as `config` that the current device runs at once (cached
// per configuration and device: every kernel of a configuration has the same block size and
// shared memory; a large number when the query fails, so the caller's own bound applies).
template <typename Cfg, typename KernelFn>
int64_t max_active_clusters(KernelFn kernel, const cudaLaunchConfig_t& config) {
  constexpr int kMaxDevices = 64;
  static std::atomic<int> cached[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices)
    return INT64_MAX;
  int known = cached[device].load(std::memory_order_relaxed);
  if (known == 0) {
    if (cudaOccupancyMaxActiveClusters(&known, kernel, &config) != cudaSuccess || known < 1) {
      cudaGetLastError();  // the query's failure is not the launch's
      known = -1;
    }
    cached[device].store(known, std::memory_order_relaxed);
  }
  return known > 0 ? known : INT64_MAX;
}

// Raises one kernel's dynamic shared-memory limit to what the configuration needs, once per
// kernel (as the SGEMM launcher does), not on every call.
template <typename Cfg, typename AB, bool TA, bool TB>
cudaError_t allow_shared_memory() {
  static const cudaError_t err = cudaFuncSetAttribute(
      gemm_sm90_kernel<Cfg, AB, TA, TB>, cudaFuncAttributeMaxDynamicSharedMemorySize,
      Cfg::kSmemBytes);
  return err;
}

template <typename Cfg, typename AB>
cudaError_t launch_sm90_typed(const tc::TcGemmParams& p, cudaStream_t stream) {
  using KernelFn =
      void (*)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const Sm90KernelArgs);
  const uint64_t m = static_cast<uint64_t>(p.m), n = static_cast<uint64_t>(p.n),
                 k = static_cast<uint64_t>(p.k);
  const tc::DType type = p.ab_type;
  CUtensorMap map_a, map_b;
  // K-major operands come as boxes of 64 k x (tile rows); M/N-major ones as boxes of 64 x 64
  // (64 x 128 with two k-tiles a stage). With one k-tile a stage, a tile shared by a cluster
  // is loaded in kClusterN parts (B: kClusterM), one per CTA; with two, each CTA loads one
  // whole k-tile of it (load_two_ktiles).
  constexpr bool kTwo = Cfg::kKTiles == 2;
  constexpr uint32_t kShareA = kTwo ? 1 : Cfg::kClusterN, kShareB = kTwo ? 1 : Cfg::kClusterM;
  constexpr uint32_t kMnMajorKRowsA = kTwo && Cfg::kClusterN == 1 ? 128 : 64;
  constexpr uint32_t kMnMajorKRowsB = kTwo && Cfg::kClusterM == 1 ? 128 : 64;
  const bool ok_a =
      p.trans_a ? encode_operand_map(&map_a, type, p.A, k, m, p.lda * 2, Cfg::kBK,
                                     Cfg::kBM / kShareA)
                : encode_operand_map(&map_a, type, p.A, m, k, p.lda * 2, 64,
                                     kMnMajorKRowsA / kShareA);
  const bool ok_b =
      p.trans_b ? encode_operand_map(&map_b, type, p.B, n, k, p.ldb * 2, 64, kMnMajorKRowsB)
                : encode_operand_map(&map_b, type, p.B, k, n, p.ldb * 2, Cfg::kBK,
                                     Cfg::kBN / kShareB);
  if (!ok_a || !ok_b) return cudaErrorInvalidValue;

  Sm90KernelArgs args{};
  args.m = p.m;
  args.n = p.n;
  args.k = p.k;
  args.C = p.C;
  args.ldc = p.ldc;
  args.c_type = p.c_type;
  args.alpha = p.alpha;
  args.beta = p.beta;
  args.tiles_m = static_cast<int>((p.m + Cfg::kBM - 1) / Cfg::kBM);
  args.tiles_n = static_cast<int>((p.n + Cfg::kBN - 1) / Cfg::kBN);
  args.k_tiles = static_cast<int>((p.k + Cfg::kBK - 1) / Cfg::kBK);
  // A K split across a cluster is the kernel's own (Sm90Config::kClusterK): dispatch never
  // splits such a kernel through the workspace as well.
  if (Cfg::kClusterK > 1 && p.split_k > 1) return cudaErrorInvalidValue;
  args.split_k = p.split_k > 1 ? p.split_k : 1;
  args.k_tiles_per_split =
      args.split_k > 1 ? static_cast<int>(p.k_per_split / Cfg::kBK) : args.k_tiles;
  // Slices of whole stages: a stage may straddle only the end of K (the kernel multiplies
  // every k-tile of a stage).
  if (args.split_k > 1 && p.k_per_split % (Cfg::kBK * Cfg::kKTiles) != 0)
    return cudaErrorInvalidValue;
  args.partial = p.partial;
  args.partial_vec = reinterpret_cast<uintptr_t>(p.partial) % 16 == 0 && p.m % 4 == 0;
  const int64_t c_bytes = static_cast<int64_t>(tc::dtype_bytes(p.c_type));
  args.c_vec = reinterpret_cast<uintptr_t>(p.C) % 16 == 0 && (p.ldc * c_bytes) % 16 == 0;
  // 16-bit C that TMA can describe: stored in 64-row x kTmaStoreBoxCols boxes (the beta = 0
  // path).
  // m must be a multiple of 8 too: the H200 measurably writes whole 16-byte pieces of a
  // column, so a box clipped inside one (m = 131) overwrote rows m..ldc-1 of the padding.
  CUtensorMap map_c{};
  args.c_tma = Cfg::kStagedEpilogue && c_bytes == 2 && args.c_vec && p.m % 8 == 0 &&
               args.split_k == 1 &&
               encode_operand_map(&map_c, p.c_type, p.C, m, n, p.ldc * 2, 64,
                                  Cfg::kTmaStoreBoxCols);

  KernelFn kernel = p.trans_a ? (p.trans_b ? gemm_sm90_kernel<Cfg, AB, true, true>
                                           : gemm_sm90_kernel<Cfg, AB, true, false>)
                              : (p.trans_b ? gemm_sm90_kernel<Cfg, AB, false, true>
                                           : gemm_sm90_kernel<Cfg, AB, false, false>);
  const cudaError_t err = p.trans_a ? (p.trans_b ? allow_shared_memory<Cfg, AB, true, true>()
                                                 : allow_shared_memory<Cfg, AB, true, false>())
                                    : (p.trans_b ? allow_shared_memory<Cfg, AB, false, true>()
                                                 : allow_shared_memory<Cfg, AB, false, false>());
  if (err != cudaSuccess) return err;
  // Persistent grid: at most one CTA per SM, whole clusters only.
  const int unit_rows = (args.tiles_m + Cfg::kClusterM - 1) / Cfg::kClusterM;
  const int unit_cols = (args.tiles_n + Cfg::kClusterN - 1) / Cfg::kClusterN;
  const int64_t units = static_cast<int64_t>(unit_rows) * unit_cols * args.split_k;
  int64_t resident =
      static_cast<int64_t>(current_sm_count()) * Cfg::kCtasPerSm / Cfg::kClusterSize;

  cudaLaunchConfig_t config{};
  config.blockDim = dim3(Cfg::kThreads);
  config.dynamicSmemBytes = Cfg::kSmemBytes;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = Cfg::kClusterSize;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  if constexpr (Cfg::kClusterSize > 1) {
    // Not every SM pair may host a cluster of these CTAs at once; a grid of more clusters
    // than fit would run its last ones as a second, serial wave of the persistent loop.
    config.gridDim = dim3(static_cast<unsigned>(resident * Cfg::kClusterSize));
    resident = std::min<int64_t>(resident, max_active_clusters<Cfg>(kernel, config));
  }
  const int64_t clusters = std::max<int64_t>(1, std::min<int64_t>(units, resident));
  const int group_m = choose_group_m(unit_rows, static_cast<int>(clusters),
                                     Cfg::kBM * Cfg::kClusterM, Cfg::kBN * Cfg::kClusterN);
  args.order = make_unit_order(unit_rows, unit_cols, group_m);
  config.gridDim = dim3(static_cast<unsigned>(clusters * Cfg::kClusterSize));
  return cudaLaunchKernelEx(&config, kernel, map_a, map_b, map_c, args);
}

}  // namespace aegis::gemm::sm90
