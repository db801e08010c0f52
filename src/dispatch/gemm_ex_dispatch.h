// Tensor-core GEMM dispatch (aegisGemmEx, aegisHgemm): architecture, operand alignment,
// shape class and tuning table -> kernel instance -> launch.
#pragma once

#include <cstdint>

#include "aegis/aegis.h"
#include "gemm/tc/tc_params.h"
#include "gemm/tc/tc_registry.h"

struct aegisContext;

namespace aegis::dispatch {

// The instance that runs p on this handle: the handle's override if it can run p, else the
// tuning table's choice for p's shape class if it can (the row's one_wave_config where all
// of p's tiles under it run at once, else its config), else the mma.sync fallback; nullptr
// when the device has no tensor-core path (compute capability below 8.0).
const gemm::tc::TcInstance* plan_gemm_ex(const aegisContext& h, const gemm::tc::TcGemmParams& p);

// The few-tiles kernel of a shape class: its row's few_tiles_config; else the medium class's
// (tuned on shallow-K calls of many mid-sized tiles, which is what a large or huge call that
// would split is); else the small class's kernel.
struct TuningTable;
const char* few_tiles_config(const TuningTable& table, aegisShapeClass_t shape_class);

// The kernel and split-K factor for p: plan_gemm_ex's kernel, split as choose_split_k says;
// except that when the tuning table's kernel would split a call with k <= kFewTilesMaxK, the
// class's few-tiles kernel (few_tiles_config: smaller tiles) runs it unsplit if its tiles
// fill the SMs.
struct GemmExPlan {
  const gemm::tc::TcInstance* instance;  // nullptr: no tensor-core path on this device
  int split_k;
};
// Measured on the H200: 1024^3 ran in 11 us on 64 x 64 tiles against 21 us on 128 x 256
// tiles split four ways (docs/perf-notes.md, TC-2); the tall and wide few-tiles kernels ran
// 4096 x 128 x 8192 and 16384 at 1.08-1.15x and 0.99-1.01x cuBLAS against the split's
// 0.83-0.90x, 128 x 4096 x 8192 and 16384 at 1.01-1.08x and 0.98-1.02x against 0.67-0.81x;
// at K = 65536 the split was as fast or faster (TN: 0.95-1.02x against 0.91-1.00x; TC-16).
// Any few-tiles kernel, whether or not it splits K in its own cluster, takes calls up to
// 16384: the medium class's ran 1024^2 x 8192 and 16384 in 32.1-32.7 and 59.2-60.5 us against
// the split's 39.6 and 61.7-61.8 us (TC-17).
constexpr int64_t kFewTilesMaxK = 16384;
GemmExPlan plan_gemm_ex_call(const aegisContext& h, const gemm::tc::TcGemmParams& p);

// Runs p (arguments already checked; m, n > 0). k = 0, or alpha = 0 in host pointer mode,
// scales C by beta; anything else launches the planned kernel and records its name in
// h->last_gemm_ex_kernel. routine names the API entry for error texts.
aegisStatus_t run_gemm_ex(aegisContext* h, const gemm::tc::TcGemmParams& p, const char* routine);

}  // namespace aegis::dispatch
