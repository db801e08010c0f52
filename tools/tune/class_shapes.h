// Representative shapes of each GEMM shape class, shared by the tuners: the default
// benchmark suite's members plus neighbours, so that a tuning row is not fitted to one size.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "aegis/aegis.h"

namespace aegis::tune {

struct Shape {
  int64_t m, n, k;
};

const std::vector<std::pair<aegisShapeClass_t, std::vector<Shape>>>& class_shapes();

}  // namespace aegis::tune
