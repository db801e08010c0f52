// aegis from C++: C = alpha * A * B + beta * C in single precision (column-major).
// Built as example_cpp; see README.md "Using aegis from C++".
#include <cstdio>
#include <memory>
#include <vector>

#include <aegis/aegis.hpp>

namespace {
struct CudaFree {
  void operator()(float* p) const { cudaFree(p); }
};
using DeviceBuffer = std::unique_ptr<float, CudaFree>;

DeviceBuffer to_device(const std::vector<float>& host) {
  float* p = nullptr;
  size_t bytes = host.size() * sizeof(float);
  if (cudaMalloc(reinterpret_cast<void**>(&p), bytes) != cudaSuccess ||
      cudaMemcpy(p, host.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
    throw aegis::Error(AEGIS_STATUS_ALLOC_FAILED, "cudaMalloc/cudaMemcpy failed");
  return DeviceBuffer(p);
}
}  // namespace

int main() {
  const int64_t m = 300, n = 200, k = 100;  // A is m x k, B is k x n, C is m x n
  std::vector<float> A(m * k), B(k * n), C(m * n, 0.0f);
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(i % 7) - 3.0f;
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(i % 5) * 0.25f;
  try {
    aegis::Handle handle;  // throws aegis::Error with AEGIS_STATUS_NO_DEVICE without a GPU
    DeviceBuffer dA = to_device(A), dB = to_device(B), dC = to_device(C);

    aegis::gemm<float>(handle, aegis::Op::N, aegis::Op::N, m, n, k, 1.0f, dA.get(), m,
                       dB.get(), k, 0.0f, dC.get(), m);

    if (cudaMemcpy(C.data(), dC.get(), C.size() * sizeof(float), cudaMemcpyDeviceToHost) !=
        cudaSuccess)
      throw aegis::Error(AEGIS_STATUS_EXECUTION_FAILED, "cudaMemcpy failed");
  } catch (const aegis::Error& e) {
    if (e.status() == AEGIS_STATUS_NO_DEVICE) {
      std::printf("example_cpp: no CUDA device on this machine, nothing to run\n");
      return 0;
    }
    std::fprintf(stderr, "%s\n", e.what());  // status name and the handle's error text
    return 1;
  }
  float ref = 0.0f;  // host value of C(m-1, n-1); exact in FP32 for these inputs
  for (int64_t p = 0; p < k; ++p) ref += A[(m - 1) + p * m] * B[p + (n - 1) * k];
  std::printf("C(%d,%d) = %g (expected %g)\n", int(m - 1), int(n - 1), C.back(), ref);
  return C.back() == ref ? 0 : 1;
}
