// aegis-inject: a fault-injection campaign against aegis's fault-tolerant SGEMM through
// its public API (aegisInjectFaults and the handle's statistics), plus a count of false
// positives on adversarial clean data.
#include <cstdio>
#include <cstring>

#include "campaign.h"
#include "command_line.h"
#include "console.h"
#include "cuda_check.h"
#include "device.h"
#include "inject_options.h"
#include "report.h"

int main(int argc, char** argv) {
  using namespace aegis;
  bench::set_tool_name("aegis-inject");
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {  // needs no GPU
      inject::print_inject_usage(stdout);
      return 0;
    }
  bench::Invocation invocation;
  invocation.args.assign(argv + 1, argv + argc);
  invocation.command_line = bench::join_command_line(argc, argv);
  const inject::InjectOptions options = inject::parse_inject_options(invocation);
  const bench::DeviceInfo device = bench::require_device();  // exits with 2 without a GPU

  cudaStream_t stream = nullptr;
  aegisHandle_t aegis = nullptr;
  cublasHandle_t cublas = nullptr;
  AEGIS_BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisCreate(&aegis));
  AEGIS_BENCH_CHECK_AEGIS(aegis, aegisSetStream(aegis, stream));
  AEGIS_BENCH_CHECK_AEGIS(aegis, aegisSetPointerMode(aegis, AEGIS_POINTER_MODE_HOST));
  AEGIS_BENCH_CHECK_CUBLAS(cublasCreate(&cublas));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetStream(cublas, stream));
  AEGIS_BENCH_CHECK_CUBLAS(cublasSetMathMode(cublas, CUBLAS_DEFAULT_MATH));  // no TF32

  AEGIS_BENCH_CHECK_AEGIS(aegis, aegisSetFtLevel(aegis, options.level));
  AEGIS_BENCH_CHECK_AEGIS(aegis, aegisSetFtVerifyInterval(aegis, options.verify_interval));

  std::printf("aegis-inject: %s (%d SMs, cc %s), mode %s, level %s, %lld injections per case "
              "x %zu cases, %lld clean runs, seed %llu\n",
              device.name.c_str(), device.sm_count, device.compute_capability().c_str(),
              inject::mode_name(options.mode), options.level_name.c_str(),
              (long long)options.injections, options.shapes.size() * options.ops.size(),
              (long long)options.clean_runs, (unsigned long long)options.seed);
  const inject::CampaignReport report = inject::run_campaign(options, aegis, cublas, stream);
  inject::print_report(options, report);
  if (!options.json_path.empty() &&
      !inject::write_json_report(options.json_path, invocation, device, options, report)) {
    std::fprintf(stderr, "aegis-inject: cannot write %s\n", options.json_path.c_str());
    return 1;
  }

  AEGIS_BENCH_CHECK_CUBLAS(cublasDestroy(cublas));
  AEGIS_BENCH_CHECK_AEGIS(nullptr, aegisDestroy(aegis));
  AEGIS_BENCH_CHECK_CUDA(cudaStreamDestroy(stream));
  return report.failures() > 0 ? 1 : 0;
}
