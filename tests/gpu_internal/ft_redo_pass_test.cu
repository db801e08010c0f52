// The FT redo pass over a list of tiles (sgemm_ft_kernel.cuh, general instance with
// redo_pass = 1), driven directly: the public API reaches it only when the fast kernel meets a
// fault it cannot locate, which fault injection (general kernel only) cannot produce.
//
// The test forms the reference checksums as dispatch does, fills C with NaN, writes a redo
// list, and launches the redo pass alone with fewer blocks than listed tiles. With beta = 0
// every listed tile must come out equal to alpha op(A) op(B) within the rounding bound, and
// every other tile must keep its NaNs (the fast kernel leaves a listed tile's C alone, so the
// redo pass is the only writer of those tiles).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>

#include "abft/ft_params.h"
#include "gemm/simt/ft_checksums.h"
#include "gemm/simt/gemm_config.h"
#include "gemm/simt/sgemm_ft_kernel.cuh"
#include "gemm/simt/sgemm_launch.cuh"
#include "gemm/simt/sgemm_registry.h"
#include "sm90_test.h"

namespace {

using aegis::gemm::simt::FtBlock;
using aegis::gemm::simt::GemmParams;
using aegis::gemm::simt::TileConfig;

// The smallest tile of the table: 10 x 10 tiles of 32 x 32 for a 300 x 290 C, more tiles than
// the redo pass has blocks (kRedoBlocks), so its blocks walk the list more than once.
using Cfg = TileConfig<32, 32, 8, 32, 32, 4, 8>;
constexpr int64_t kM = 300, kN = 290, kK = 70;
constexpr float kAlpha = 1.5f;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

// Same tile order as the kernels' tile_coords (sgemm_kernel.cuh): groups of 8 tile rows,
// column by column.
void host_tile_coords(int tile, int tiles_m, int tiles_n, int& tm, int& tn) {
  constexpr int kGroupM = 8;
  const int per_group = kGroupM * tiles_n;
  const int group = tile / per_group;
  const int first_m = group * kGroupM;
  const int group_m = std::min(tiles_m - first_m, kGroupM);
  const int in_group = tile - group * per_group;
  tm = first_m + in_group % group_m;
  tn = in_group / group_m;
}

class FtRedoPass : public aegis_internal_test::Sm90Test {};

// Runs the redo pass over `listed` (tile indices) on a NaN-filled C and checks every element:
// listed tiles against the FP64 reference, the others still NaN.
void run_and_check(int sm_count, const std::vector<int>& listed) {
  std::mt19937_64 g(0x5eed0f7ed0ull + listed.size());
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> a(static_cast<size_t>(kM * kK)), b(static_cast<size_t>(kK * kN));
  for (float& x : a) x = u(g);
  for (float& x : b) x = u(g);

  float *dA = nullptr, *dB = nullptr, *dC = nullptr;
  aegis::abft::FtDeviceStats* stats = nullptr;
  void* scratch = nullptr;
  CUDA_OK(cudaMalloc(&dA, a.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dB, b.size() * sizeof(float)));
  CUDA_OK(cudaMalloc(&dC, kM * kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&stats, sizeof(*stats)));
  CUDA_OK(cudaMemcpy(dA, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(dB, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dC, 0xFF, kM * kN * sizeof(float)));  // NaN
  CUDA_OK(cudaMemset(stats, 0, sizeof(*stats)));

  // The call as dispatch prepares it (gemm_dispatch.cpp): NN, beta = 0, no split-K.
  GemmParams<float> p{};
  p.m = kM; p.n = kN; p.k = kK;
  p.A = dA; p.lda = kM;
  p.B = dB; p.ldb = kK;
  p.C = dC; p.ldc = kM;
  p.alpha = {kAlpha, nullptr};
  p.beta = {0.0f, nullptr};
  p.a_vec = kM % 4 == 0;
  p.b_vec = kK % 4 == 0;
  p.c_vec = kM % 4 == 0;
  p.split_k = 1;
  p.k_per_split = kK;
  p.tiles_m = static_cast<int>((kM + Cfg::kMTB - 1) / Cfg::kMTB);
  p.tiles_n = static_cast<int>((kN + Cfg::kNTB - 1) / Cfg::kNTB);
  p.ft.mode = aegis::abft::FtMode::kCorrect;
  p.ft.stats = stats;

  aegis::gemm::simt::SgemmInstance tile{};
  tile.name = "redo-pass test tile";
  tile.mtb = Cfg::kMTB;
  tile.ntb = Cfg::kNTB;
  tile.ktb = Cfg::kKTB;
  tile.mw = Cfg::kMW;
  tile.nw = Cfg::kNW;
  tile.mt = Cfg::kMT;
  tile.nt = Cfg::kNT;
  tile.threads = Cfg::kThreads;
  tile.blocks_per_sm = Cfg::kMinBlocksPerSM;
  int cc_major = 0;
  CUDA_OK(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, 0));
  const auto plan = aegis::gemm::simt::plan_ft_checksums(kM, kN, kK, tile,
                                                         aegis::gemm::simt::FtLevel::kBlock, 0,
                                                         sm_count, cc_major);
  CUDA_OK(cudaMalloc(&scratch, plan.bytes));
  CUDA_OK(aegis::gemm::simt::launch_ft_checksums(p, false, false, plan, scratch, 0));

  // The list the fast kernel would have left: a count, then the tiles.
  std::vector<int> list;
  list.push_back(static_cast<int>(listed.size()));
  list.insert(list.end(), listed.begin(), listed.end());
  CUDA_OK(cudaMemcpy(p.ft.redo_count, list.data(), list.size() * sizeof(int),
                     cudaMemcpyHostToDevice));

  constexpr auto general = aegis::gemm::simt::sgemm_simt_ft_kernel<Cfg, false, false, true>;
  constexpr int kSmem = FtBlock<Cfg, false, false>::kSmemBytes;
  CUDA_OK((aegis::gemm::simt::allow_shared_memory<general, kSmem>()));
  GemmParams<float> redo = p;
  redo.ft.redo_pass = 1;
  const unsigned tiles = static_cast<unsigned>(p.tiles_m * p.tiles_n);
  const unsigned blocks = std::min(tiles, aegis::gemm::simt::kRedoBlocks);
  ASSERT_LT(blocks, listed.size() > 0 ? listed.size() : tiles + 1)
      << "the list must be longer than the redo grid, so that blocks walk it more than once";
  general<<<blocks, Cfg::kThreads, kSmem>>>(redo);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());

  std::vector<float> c(static_cast<size_t>(kM * kN));
  CUDA_OK(cudaMemcpy(c.data(), dC, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  aegis::abft::FtDeviceStats host_stats{};
  CUDA_OK(cudaMemcpy(&host_stats, stats, sizeof(host_stats), cudaMemcpyDeviceToHost));

  std::vector<bool> in_list(tiles, false);
  for (int t : listed) in_list[static_cast<size_t>(t)] = true;
  const double u_f32 = std::ldexp(1.0, -24);
  const double gamma = (kK + 2) * u_f32 / (1.0 - (kK + 2) * u_f32);
  int64_t wrong = 0, touched = 0, checked = 0;
  for (int tile_index = 0; tile_index < static_cast<int>(tiles); ++tile_index) {
    int tm = 0, tn = 0;
    host_tile_coords(tile_index, p.tiles_m, p.tiles_n, tm, tn);
    for (int64_t j = int64_t(tn) * Cfg::kNTB; j < std::min<int64_t>(kN, (tn + 1) * Cfg::kNTB); ++j)
      for (int64_t i = int64_t(tm) * Cfg::kMTB; i < std::min<int64_t>(kM, (tm + 1) * Cfg::kMTB);
           ++i) {
        const float got = c[static_cast<size_t>(i + j * kM)];
        if (!in_list[static_cast<size_t>(tile_index)]) {
          touched += !std::isnan(got);
          continue;
        }
        double ref = 0, mag = 0;
        for (int64_t k = 0; k < kK; ++k) {
          const double prod = double(a[static_cast<size_t>(i + k * kM)]) *
                              double(b[static_cast<size_t>(k + j * kK)]);
          ref += prod;
          mag += std::fabs(prod);
        }
        ref *= kAlpha;
        mag *= std::fabs(kAlpha);
        ++checked;
        if (!(std::fabs(double(got) - ref) <= 2 * gamma * mag + 1e-30)) {
          if (wrong == 0)
            ADD_FAILURE() << "C(" << i << ", " << j << ") of listed tile " << tile_index
                          << " = " << got << ", reference " << ref << ", bound "
                          << 2 * gamma * mag;
          ++wrong;
        }
      }
  }
  EXPECT_EQ(wrong, 0) << "of " << checked << " elements of the listed tiles";
  EXPECT_EQ(touched, 0) << "elements of tiles not on the list were written";
  // Every listed tile was checked twice, after its K loop and in its epilogue; clean data:
  // nothing detected.
  EXPECT_EQ(host_stats.checks, 2 * listed.size());
  EXPECT_EQ(host_stats.detected, 0u);

  cudaFree(scratch);
  cudaFree(stats);
  cudaFree(dC);
  cudaFree(dB);
  cudaFree(dA);
}

TEST_F(FtRedoPass, EveryTileListedIsComputedAgain) {
  std::vector<int> all(100);
  for (int t = 0; t < 100; ++t) all[static_cast<size_t>(t)] = 99 - t;  // any order
  run_and_check(sm_count_, all);
}

TEST_F(FtRedoPass, OnlyListedTilesAreWritten) {
  // 70 tiles (more than the grid), the others left alone.
  std::vector<int> some;
  for (int t = 0; t < 100; ++t)
    if (t % 10 != 3 && t % 10 != 7 && t % 10 != 9) some.push_back(t);
  ASSERT_EQ(some.size(), 70u);
  run_and_check(sm_count_, some);
}

}  // namespace
