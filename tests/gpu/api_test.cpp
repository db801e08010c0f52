// Handle behaviour on a device: streams (including capture into a CUDA graph, which fails if
// a call synchronizes or strays from the handle's stream), user workspaces, the C++ API.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

#include "aegis/aegis.h"
#include "aegis/aegis.hpp"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

// RAII non-blocking stream: work on it is not ordered with the legacy default stream.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() { cudaStreamDestroy(s); }
};

SgemmCase deep_case() {  // splits when the override allows it
  SgemmCase c;
  c.transa = AEGIS_OP_T;
  c.m = 65;
  c.n = 63;
  c.k = 2053;
  c.alpha = -1.5f;
  c.beta = 0.0f;
  return c;
}

using GpuHandle = GpuTest;

TEST_F(GpuHandle, TuningTableMatchesDevice) {
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, dev), cudaSuccess);
  const std::string table = aegisGetTuningTableName(h_);
  if (std::string(prop.name).find("H200") != std::string::npos)
    EXPECT_EQ(table, "h200") << prop.name;
  else
    EXPECT_FALSE(table.empty()) << prop.name;
  size_t bytes = 0;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &bytes), AEGIS_STATUS_SUCCESS);
  EXPECT_GT(bytes, 0u);
}

TEST_F(GpuHandle, LastChoiceNamesACompiledConfig) {
  SgemmCase c;
  c.m = 200;
  c.n = 100;
  c.k = 50;
  std::string kernel;
  int split = 0;
  ASSERT_TRUE(run_sgemm_case(h_, c, seed_, &kernel, &split));
  bool known = false;
  for (int i = 0; i < aegisSgemmConfigCount(); ++i)
    known = known || kernel_is_config(kernel, aegisSgemmConfigName(i));
  EXPECT_TRUE(known) << "last choice \"" << kernel << "\" is no compiled configuration";
  EXPECT_GE(split, 1);
}

TEST_F(GpuHandle, InvalidCallLeavesCUntouched) {
  SgemmCase c;
  c.m = 40;
  c.n = 30;
  c.k = 20;
  c.beta = 0.5f;
  const SgemmProblem p(c, seed_);
  EXPECT_EQ(aegisSgemm(h_, AEGIS_OP_N, AEGIS_OP_N, c.m, c.n, c.k, &c.alpha, p.A(), c.m - 1, p.B(),
                       p.ldb(), &c.beta, p.C(), p.ldc()),
            AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(), "aegisSgemm: parameter 8 (lda = 39) must be >= max(1, m = 40)");
  EXPECT_TRUE(p.unchanged());
}

TEST_F(GpuHandle, NonDefaultStream) {
  Stream stream;
  ASSERT_EQ(aegisSetStream(h_, stream.s), AEGIS_STATUS_SUCCESS);
  cudaStream_t got = nullptr;
  ASSERT_EQ(aegisGetStream(h_, &got), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(got, stream.s);
  // run_sgemm_case synchronizes only the handle's stream before checking.
  SgemmCase c;
  c.m = 300;
  c.n = 200;
  c.k = 100;
  c.beta = 0.5f;
  EXPECT_TRUE(run_sgemm_case(h_, c, case_seed(seed_, 1)));
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  int split = 0;
  EXPECT_TRUE(run_sgemm_case(h_, deep_case(), case_seed(seed_, 2), nullptr, &split));
  EXPECT_GT(split, 1);
  SgemmCase scale = c;
  scale.alpha = 0.0f;
  scale.nan_inputs = true;
  EXPECT_TRUE(run_sgemm_case(h_, scale, case_seed(seed_, 3)));
  ASSERT_EQ(aegisSetStream(h_, nullptr), AEGIS_STATUS_SUCCESS);
}

TEST_F(GpuHandle, CapturedInCudaGraph) {
  // Capture in global mode rejects synchronizing calls and work on other streams: each call
  // must queue all its work on the handle's stream and nothing else.
  Stream stream;
  ASSERT_EQ(aegisSetStream(h_, stream.s), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  SgemmCase scale;
  scale.m = 70;
  scale.n = 50;
  scale.k = 30;
  scale.alpha = 0.0f;
  scale.beta = -2.0f;
  scale.nan_inputs = true;
  SgemmCase plain = deep_case();
  plain.k = 20;  // too shallow to split: one kernel
  int index = 0;
  for (const SgemmCase& c : {deep_case(), scale, plain}) {
    SCOPED_TRACE(c.describe());
    const SgemmProblem p(c, case_seed(seed_, index++));
    ASSERT_EQ(cudaStreamBeginCapture(stream.s, cudaStreamCaptureModeGlobal), cudaSuccess);
    const aegisStatus_t s = p.call(h_);
    cudaGraph_t graph = nullptr;
    const cudaError_t end = cudaStreamEndCapture(stream.s, &graph);
    ASSERT_EQ(s, AEGIS_STATUS_SUCCESS) << last_error();
    ASSERT_EQ(end, cudaSuccess) << cudaGetErrorString(end);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream.s), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
    EXPECT_TRUE(p.verify());
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
  ASSERT_EQ(aegisSetStream(h_, nullptr), AEGIS_STATUS_SUCCESS);
}

TEST_F(GpuHandle, UserWorkspace) {
  ASSERT_EQ(aegisSetSgemmOverride(h_, aegisSgemmConfigName(0), 8), AEGIS_STATUS_SUCCESS);
  size_t own = 0;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &own), AEGIS_STATUS_SUCCESS);

  DeviceBuffer<float> big(size_t(16) << 20);  // 64 MiB
  ASSERT_EQ(aegisSetWorkspace(h_, big.get(), big.size() * sizeof(float)), AEGIS_STATUS_SUCCESS);
  int split = 0;
  EXPECT_TRUE(run_sgemm_case(h_, deep_case(), case_seed(seed_, 1), nullptr, &split));
  EXPECT_GT(split, 1) << "a large user workspace allows split-K";

  // Too small for two slices of partial sums: no split, still correct.
  DeviceBuffer<float> tiny(64);
  ASSERT_EQ(aegisSetWorkspace(h_, tiny.get(), tiny.size() * sizeof(float)), AEGIS_STATUS_SUCCESS);
  EXPECT_TRUE(run_sgemm_case(h_, deep_case(), case_seed(seed_, 2), nullptr, &split));
  EXPECT_EQ(split, 1) << "partial sums cannot fit 256 bytes";

  ASSERT_EQ(aegisSetWorkspace(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  size_t bytes = 0;
  ASSERT_EQ(aegisGetWorkspaceSize(h_, &bytes), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(bytes, own);
  EXPECT_TRUE(run_sgemm_case(h_, deep_case(), case_seed(seed_, 3), nullptr, &split));
  EXPECT_GT(split, 1);
}

// ---- C++ API ---------------------------------------------------------------------------

class CppApi : public ::testing::Test {
 protected:
  void SetUp() override {
    AEGIS_SKIP_WITHOUT_GPU();
    seed_ = test_seed();
    RecordProperty("seed", hex(seed_));
  }
  uint64_t seed_ = 0;
};

TEST_F(CppApi, GemmByValue) {
  aegis::Handle h;
  SgemmCase c;
  c.transa = AEGIS_OP_T;
  c.m = 130;
  c.n = 70;
  c.k = 90;
  c.alpha = -1.5f;
  c.beta = 0.5f;
  c.padded_ld = true;
  const SgemmProblem p(c, seed_);
  aegis::gemm<float>(h, aegis::Op::T, aegis::Op::N, c.m, c.n, c.k, c.alpha, p.A(), p.lda(), p.B(),
                     p.ldb(), c.beta, p.C(), p.ldc());
  EXPECT_TRUE(p.verify());
}

TEST_F(CppApi, GemmDeviceScalarsOnStream) {
  Stream stream;
  aegis::Handle h(stream.s);
  EXPECT_EQ(h.stream(), stream.s);
  h.set_pointer_mode(aegis::PointerMode::Device);
  EXPECT_EQ(h.pointer_mode(), aegis::PointerMode::Device);
  SgemmCase c;
  c.transb = AEGIS_OP_T;
  c.m = 65;
  c.n = 129;
  c.k = 33;
  const SgemmProblem p(c, seed_);
  aegis::gemm<float>(h, aegis::Op::N, aegis::Op::T, c.m, c.n, c.k, p.alpha_device(), p.A(),
                     p.lda(), p.B(), p.ldb(), p.beta_device(), p.C(), p.ldc());
  ASSERT_EQ(cudaStreamSynchronize(stream.s), cudaSuccess);
  EXPECT_TRUE(p.verify());
  // Scalars by value need host pointer mode.
  try {
    aegis::gemm<float>(h, aegis::Op::N, aegis::Op::T, c.m, c.n, c.k, 1.0f, p.A(), p.lda(), p.B(),
                       p.ldb(), 0.0f, p.C(), p.ldc());
    ADD_FAILURE() << "by-value scalars in device pointer mode must throw";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.status(), AEGIS_STATUS_INVALID_VALUE);
  }
}

TEST_F(CppApi, BadLdaThrows) {
  aegis::Handle h;
  SgemmCase c;
  c.m = 4;
  c.n = 6;
  c.k = 5;
  const SgemmProblem p(c, seed_);
  try {
    aegis::gemm<float>(h, aegis::Op::N, aegis::Op::N, 4, 6, 5, 1.0f, p.A(), 3, p.B(), p.ldb(),
                       0.0f, p.C(), p.ldc());
    FAIL() << "lda = 3 < m = 4 must throw";
  } catch (const aegis::Error& e) {
    EXPECT_EQ(e.status(), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(e.detail(), "aegisSgemm: parameter 8 (lda = 3) must be >= max(1, m = 4)");
    EXPECT_NE(std::string(e.what()).find("parameter 8 (lda = 3)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(h.last_error(), "aegisSgemm: parameter 8 (lda = 3) must be >= max(1, m = 4)");
}

}  // namespace
}  // namespace aegis_test
