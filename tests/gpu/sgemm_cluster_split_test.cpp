// Cluster-split SGEMM configurations (options "c" in sgemm_configs.def, names ending in "_c"
// or "_cp"): the slices of a tile sum their partials in distributed shared memory, in slice
// order, and the L2 prefetch ("p") only adds hints. So each must give, split for split, the
// same bits as its plain configuration through the workspace and the reduction kernel.
//
// Tests: SgemmClusterSplit.SameBitsAsTheWorkspaceSplit
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "gpu_test_util.h"

namespace aegis_test {
namespace {

// "sgemm_simt_..._cp" -> "sgemm_simt_..." for configurations with a cluster option; "" else.
std::string plain_of_cluster_config(const std::string& name) {
  for (const char* suffix : {"_c", "_cp"}) {
    const size_t len = std::strlen(suffix);
    if (name.size() > len && name.compare(name.size() - len, len, suffix) == 0)
      return name.substr(0, name.size() - len);
  }
  return "";
}

bool has_config(const std::string& name) {
  for (int i = 0; i < aegisSgemmConfigCount(); ++i)
    if (name == aegisSgemmConfigName(i)) return true;
  return false;
}

std::vector<float> download_c(const SgemmProblem& p) {
  const SgemmCase& c = p.spec();
  std::vector<float> host(static_cast<size_t>(p.ldc() * c.n));
  check_cuda(cudaMemcpy(host.data(), p.C(), host.size() * sizeof(float), cudaMemcpyDeviceToHost),
             "copy C");
  return host;
}

using SgemmClusterSplit = GpuTest;

TEST_F(SgemmClusterSplit, SameBitsAsTheWorkspaceSplit) {
  struct Shape {
    int64_t m, n, k;
  };
  // Tall (A streamed and prefetched), wide (B), and ragged edges in every dimension.
  const Shape shapes[] = {{2048, 128, 4096}, {128, 2048, 4096}, {257, 131, 2053}, {33, 65, 1031}};
  const aegisOperation_t ops[] = {AEGIS_OP_N, AEGIS_OP_T};
  int configs = 0, compared = 0;
  size_t index = 0;
  for (int i = 0; i < aegisSgemmConfigCount(); ++i) {
    const std::string config = aegisSgemmConfigName(i);
    const std::string plain = plain_of_cluster_config(config);
    if (plain.empty() || !has_config(plain)) continue;
    ++configs;
    for (const Shape& s : shapes)
      for (aegisOperation_t ta : ops)
        for (aegisOperation_t tb : ops) {
          SgemmCase c;
          c.transa = ta;
          c.transb = tb;
          c.m = s.m;
          c.n = s.n;
          c.k = s.k;
          c.alpha = -1.5f;
          c.beta = index % 2 ? 0.5f : 0.0f;
          c.unaligned = index % 3 == 2;
          c.col_step = 7;
          SCOPED_TRACE(config + " " + c.describe());
          const uint64_t seed = case_seed(seed_, index++);
          int split[2] = {0, 0};
          std::vector<float> result[2];
          const std::string names[2] = {plain, config};
          for (int v = 0; v < 2; ++v) {
            ASSERT_EQ(aegisSetSgemmOverride(h_, names[v].c_str(), 8), AEGIS_STATUS_SUCCESS)
                << last_error();
            const SgemmProblem p(c, seed);  // the same operands for both
            ASSERT_EQ(p.call(h_), AEGIS_STATUS_SUCCESS) << last_error();
            EXPECT_TRUE(p.verify()) << names[v];
            const char* kernel = nullptr;
            ASSERT_EQ(aegisGetLastSgemmChoice(h_, &kernel, &split[v]), AEGIS_STATUS_SUCCESS);
            result[v] = download_c(p);
          }
          // A cluster split may be capped where its clusters would not fit at once.
          if (split[0] != split[1] || split[1] < 2) continue;
          ++compared;
          size_t differ = 0;
          for (size_t e = 0; e < result[0].size(); ++e)
            differ += std::memcmp(&result[0][e], &result[1][e], sizeof(float)) != 0;
          EXPECT_EQ(differ, 0u) << "split " << split[0] << ": " << differ
                                << " elements differ from " << plain;
        }
  }
  if (configs == 0) GTEST_SKIP() << "this build has no cluster-split configuration";
  EXPECT_GT(compared, 0) << "no case ran both with the same split-K factor";
}

}  // namespace
}  // namespace aegis_test
