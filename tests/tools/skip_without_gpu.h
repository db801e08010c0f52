// The harness tests' guard: skip, with the reason, where no CUDA device is usable (CI).
#ifndef AEGIS_TESTS_TOOLS_SKIP_WITHOUT_GPU_H
#define AEGIS_TESTS_TOOLS_SKIP_WITHOUT_GPU_H

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

// `what` names the harness piece that needs the device, for the skip message.
#define SKIP_WITHOUT_GPU(what)                                                \
  do {                                                                        \
    int devices = 0;                                                          \
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {        \
      cudaGetLastError();                                                     \
      GTEST_SKIP() << "no CUDA device: " what " needs one";                  \
    }                                                                         \
  } while (0)

#endif  // AEGIS_TESTS_TOOLS_SKIP_WITHOUT_GPU_H
