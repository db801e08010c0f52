#include "gemm_types.h"

#include <cctype>
#include <cmath>

#include "device_kernels.h"

namespace aegis::bench {

const char* element_type_name(aegisDataType_t type) {
  switch (type) {
    case AEGIS_R_16F:
      return "f16";
    case AEGIS_R_16BF:
      return "bf16";
    case AEGIS_R_32F:
      return "f32";
  }
  return "?";
}

bool parse_element_type(const std::string& text, aegisDataType_t* type) {
  std::string lower = text;
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (aegisDataType_t known : {AEGIS_R_32F, AEGIS_R_16F, AEGIS_R_16BF}) {
    if (lower == element_type_name(known)) {
      *type = known;
      return true;
    }
  }
  return false;
}

size_t element_bytes(aegisDataType_t type) { return type == AEGIS_R_32F ? 4 : 2; }

cudaDataType_t cuda_data_type(aegisDataType_t type) {
  return type == AEGIS_R_16F ? CUDA_R_16F : type == AEGIS_R_16BF ? CUDA_R_16BF : CUDA_R_32F;
}

double unit_roundoff(aegisDataType_t type) {
  return std::ldexp(1.0, type == AEGIS_R_16F ? -11 : type == AEGIS_R_16BF ? -8 : -24);
}

double underflow_error(aegisDataType_t type) {
  return std::ldexp(1.0, type == AEGIS_R_16F ? -25 : type == AEGIS_R_16BF ? -134 : -150);
}

cudaError_t fill_uniform(aegisDataType_t type, void* data, int64_t count, uint64_t seed,
                         uint64_t stream_id, cudaStream_t stream) {
  switch (type) {
    case AEGIS_R_16F:
      return fill_uniform(static_cast<__half*>(data), count, seed, stream_id, stream);
    case AEGIS_R_16BF:
      return fill_uniform(static_cast<__nv_bfloat16*>(data), count, seed, stream_id, stream);
    case AEGIS_R_32F:
      break;
  }
  return fill_uniform(static_cast<float*>(data), count, seed, stream_id, stream);
}

}  // namespace aegis::bench
