// Checks that an installed aegis can be found, compiled against, linked and loaded.
// Exits 0 on a machine without a GPU.
#include <cstdio>

#include <aegis/aegis.hpp>

int main() {
  const int version = aegisGetVersion();
  const int expected =
      AEGIS_VERSION_MAJOR * 10000 + AEGIS_VERSION_MINOR * 100 + AEGIS_VERSION_PATCH;
  std::printf("aegis %d.%d.%d, %d SGEMM kernel configurations\n", version / 10000,
              version / 100 % 100, version % 100, aegisSgemmConfigCount());
  if (version != expected) {
    std::fprintf(stderr, "header says version %d, library says %d\n", expected, version);
    return 1;
  }
  if (aegisSgemmConfigCount() < 1) {
    std::fprintf(stderr, "the installed library has no SGEMM kernels\n");
    return 1;
  }
  try {
    aegis::Handle handle;
    std::printf("handle created; tuning table: %s\n", aegisGetTuningTableName(handle));
  } catch (const aegis::Error& e) {
    if (e.status() != AEGIS_STATUS_NO_DEVICE) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    std::printf("no CUDA device on this machine; handle creation reported %s as expected\n",
                aegisGetStatusName(e.status()));
  }
  return 0;
}
