// All level-2 instances of this build, by name.
#include <cstring>
#include <vector>

#include "blas2/blas2_launch.h"

namespace aegis::blas2 {

const Blas2Instance* const* blas2_instances(int* count) {
  static const std::vector<const Blas2Instance*> all = [] {
    std::vector<const Blas2Instance*> v;
    for (auto table : {blas2_instances_s, blas2_instances_d, blas2_instances_c, blas2_instances_z}) {
      int n = 0;
      const Blas2Instance* rows = table(&n);
      for (int i = 0; i < n; ++i) v.push_back(&rows[i]);
    }
    return v;
  }();
  *count = int(all.size());
  return all.data();
}

const Blas2Instance* find_blas2_instance(const char* name) {
  if (!name) return nullptr;
  int count = 0;
  const Blas2Instance* const* all = blas2_instances(&count);
  for (int i = 0; i < count; ++i)
    if (std::strcmp(all[i]->name, name) == 0) return all[i];
  return nullptr;
}

cudaError_t blas2_scale(Precision precision, int64_t count, void* y, int64_t inc,
                        const Blas2Call& call, cudaStream_t stream) {
  switch (precision) {
    case Precision::S: return blas2_scale_s(count, y, inc, call, stream);
    case Precision::D: return blas2_scale_d(count, y, inc, call, stream);
    case Precision::C: return blas2_scale_c(count, y, inc, call, stream);
    case Precision::Z: return blas2_scale_z(count, y, inc, call, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace aegis::blas2
