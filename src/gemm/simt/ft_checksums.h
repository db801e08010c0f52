// The reference checksums of the fused FT-SGEMM (ft_block.cuh), formed before the GEMM for
// every checksum line at once. The level's groups (ft_groups.h) decide the lines: whole tile
// rows and columns at block level, a warp's or a thread's part of them at the finer levels.
//   1. the operand sums (ft_operand_sums.h): asum of op(A) over each row group, bsum of
//      op(B) over each column group, for every k (asum in step 2 where it can: one read of A
//      fewer);
//   2. two narrow GEMMs, on tensor cores with split operands where the device has them
//      (ft_reference_tf32.h), else through plain SIMT instances, each split into pieces of K:
//        row_ck (m x groups_n) = op(A) bsum^T,   col_ck (n x groups_m) = op(B)^T asum^T,
//      which FtParams describes (groups_n = tiles_n at block level). Their FLOPs are
//      (1 / row group height + 1 / column group width) of the GEMM's: 1.6 % for 128 x 128
//      blocks, 25 % for 8 x 8 threads.
// With a verify interval the pieces are the interval's K chunks (a check after chunk c adds
// piece c); without one they only spread the narrow GEMMs over the SMs (split-K without a
// reduction: the final check adds them up).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemm/simt/ft_groups.h"
#include "gemm/simt/gemm_params.h"
#include "gemm/simt/sgemm_registry.h"

namespace aegis::gemm::simt {

struct FtChecksumPlan {
  FtGroupShape rows, cols;        // the level's groups of a tile's rows and columns
  int64_t groups_m, groups_n;     // row and column groups over all tiles
  bool tf32;                      // the narrow GEMMs run on tensor cores (3xTF32)
  bool a_sums_by_row_gemm;        // and the one reading op(A) forms asum (its row groups are
                                  // its blocks of rows); the operand pass then reads B alone
  bool dependent;                 // the narrow GEMMs are programmatic dependent launches
                                  // (compute capability 9 and up, with tf32): each may start
                                  // while the kernel before it ends
  const SgemmInstance* row_gemm;  // otherwise this forms row_ck (m x groups_n); null with tf32
  const SgemmInstance* col_gemm;  // and this col_ck (n x groups_m); null with tf32
  int pieces;
  int64_t k_per_piece;
  int64_t sums_ld;
  // Bytes into the scratch: the operand sums, the reference checksums, the redo list.
  size_t a_sums_offset, b_sums_offset, row_ck_offset, col_ck_offset, redo_offset;
  size_t bytes;                                                       // scratch needed
};

// gemm: the FT GEMM's instance (its tiles and the level decide the lines); verify_interval in
// its K tiles (0: one check at the end); sm_count: the device's SMs; cc_major: its compute
// capability (tensor cores from 8).
FtChecksumPlan plan_ft_checksums(int64_t m, int64_t n, int64_t k, const SgemmInstance& gemm,
                                 FtLevel level, int verify_interval, int sm_count, int cc_major);

// Launches steps 1 and 2 on `stream` into `scratch` (plan.bytes, 256-byte aligned) and
// points p.ft at the result. p carries the FT GEMM's operands, alpha (with alpha = 0 in
// device pointer mode nothing is read) and tiles. The narrow GEMMs are dependent launches
// (plan.dependent), which hides the gaps between the three kernels. The FT kernel launched
// next is an ordinary launch: as a dependent one its first blocks shared the SMs with the
// last narrow GEMM and slowed it, while its wave still ended with its latest block (about a
// point more overhead at 2048-8192, measured: docs/perf-notes.md FT-13).
cudaError_t launch_ft_checksums(GemmParams<float>& p, bool trans_a, bool trans_b,
                                const FtChecksumPlan& plan, void* scratch, cudaStream_t stream);

}  // namespace aegis::gemm::simt
