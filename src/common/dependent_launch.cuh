// Programmatic dependent launch (Hopper): a kernel launched with launch_dependent may start
// while the kernel ahead of it in the stream finishes, which hides the launch gap between
// them. It must call wait_for_preceding_kernel() before it touches anything that kernel
// writes (the wait returns once that kernel has completed and its writes are visible;
// without the launch attribute, or before sm_90, it returns at once).
#pragma once

#include <cuda_runtime.h>

namespace aegis {

__device__ __forceinline__ void wait_for_preceding_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Called by a kernel ahead of a dependent one: lets the dependent grid's blocks launch now
// (they still wait in wait_for_preceding_kernel() for this kernel's writes). Without it they
// launch as this kernel's blocks exit.
__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// launch_dependent with smem_bytes of dynamic shared memory per block.
template <typename... KArgs, typename... Args>
cudaError_t launch_dependent_shared(void (*kernel)(KArgs...), dim3 grid, dim3 block,
                                    size_t smem_bytes, cudaStream_t stream, Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

template <typename... KArgs, typename... Args>
cudaError_t launch_dependent(void (*kernel)(KArgs...), dim3 grid, dim3 block, cudaStream_t stream,
                             Args... args) {
  return launch_dependent_shared(kernel, grid, block, 0, stream, args...);
}

// launch_dependent where `dependent` holds (a kernel after a pre-pass that allows it), else
// an ordinary launch.
template <typename... KArgs, typename... Args>
cudaError_t launch_dependent_if(bool dependent, void (*kernel)(KArgs...), dim3 grid, dim3 block,
                                cudaStream_t stream, Args... args) {
  if (dependent) return launch_dependent(kernel, grid, block, stream, args...);
  kernel<<<grid, block, 0, stream>>>(args...);
  return cudaGetLastError();
}

}  // namespace aegis
