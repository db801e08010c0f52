// The largest grid a kernel launch takes in y and z (CUDA: gridDim.y, gridDim.z <= 65535;
// x goes to 2^31 - 1). Launchers clamp to it and let their kernels stride over the rest.
#pragma once

#include <cstdint>

namespace aegis {

constexpr int64_t kMaxGridDimY = 65535;  // and z

}  // namespace aegis
