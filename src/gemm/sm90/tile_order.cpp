// Band height of the sm90 kernel's persistent tile order (declared in sm90_launch.cuh).
#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace aegis::gemm::sm90 {

int choose_group_m(int unit_rows, int concurrent, int unit_m, int unit_n) {
  // The units running together cover about G rows by concurrent / G columns of units; per
  // k-step they read G * unit_m rows of A and (concurrent / G) * unit_n columns of B, which
  // is least (the most L2 reuse) at G = sqrt(concurrent * unit_n / unit_m).
  // AEGIS_GEMM_EX_GROUP_M overrides it, for measuring the choice.
  static const int forced = [] {
    const char* text = std::getenv("AEGIS_GEMM_EX_GROUP_M");
    return text ? std::atoi(text) : 0;
  }();
  int g = forced > 0 ? forced
                     : static_cast<int>(std::lround(std::sqrt(
                           static_cast<double>(concurrent) * unit_n / unit_m)));
  return std::clamp(g, 1, std::max(unit_rows, 1));
}

}  // namespace aegis::gemm::sm90
