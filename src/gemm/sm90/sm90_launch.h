// Host entry of the Hopper tensor-core GEMM: one launcher per configuration, switching on
// the operand type to the instantiations in the generated instance files.
#pragma once

#include <cuda_runtime_api.h>

#include "gemm/sm90/sm90_config.h"
#include "gemm/tc/tc_params.h"

namespace aegis::gemm::sm90 {

// Operand element tags.
struct F16 {};
struct BF16 {};

// Defined in sm90_launch.cuh; instantiated per (configuration, operand type) in
// src/gemm/sm90/instances (generated).
template <typename Cfg, typename AB>
cudaError_t launch_sm90_typed(const tc::TcGemmParams& p, cudaStream_t stream);

template <typename Cfg>
cudaError_t launch_sm90(const tc::TcGemmParams& p, cudaStream_t stream) {
  return p.ab_type == tc::DType::BF16 ? launch_sm90_typed<Cfg, BF16>(p, stream)
                                      : launch_sm90_typed<Cfg, F16>(p, stream);
}

}  // namespace aegis::gemm::sm90
