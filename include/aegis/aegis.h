/* aegis: dense linear algebra for NVIDIA GPUs with optional fault tolerance.
 *
 * C API. Column-major storage, 64-bit sizes, cuBLAS argument order.
 * Every routine checks all arguments before any device work; a bad argument returns
 * AEGIS_STATUS_INVALID_VALUE and aegisGetLastErrorString() names the routine, the
 * parameter's reference-BLAS position and its value. The library never prints.
 * No routine synchronizes the host unless its name says so. */
#ifndef AEGIS_AEGIS_H
#define AEGIS_AEGIS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#if defined(_WIN32)
#define AEGIS_API __declspec(dllimport)
#elif defined(__GNUC__)
#define AEGIS_API __attribute__((visibility("default")))
#else
#define AEGIS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define AEGIS_VERSION_MAJOR 0
#define AEGIS_VERSION_MINOR 1
#define AEGIS_VERSION_PATCH 0

typedef enum {
  AEGIS_STATUS_SUCCESS = 0,
  AEGIS_STATUS_NOT_INITIALIZED = 1,  /* null or destroyed handle */
  AEGIS_STATUS_ALLOC_FAILED = 2,     /* device or host allocation failed */
  AEGIS_STATUS_INVALID_VALUE = 3,    /* an argument is out of range; see the last error text */
  AEGIS_STATUS_ARCH_MISMATCH = 4,    /* no kernel in this build runs on the current GPU */
  AEGIS_STATUS_EXECUTION_FAILED = 5, /* a kernel launch or CUDA call failed */
  AEGIS_STATUS_NOT_SUPPORTED = 6,    /* valid request that this build does not implement */
  AEGIS_STATUS_NO_DEVICE = 7,        /* no usable CUDA device (or driver) on this machine */
  AEGIS_STATUS_INTERNAL_ERROR = 8
} aegisStatus_t;

typedef enum {
  AEGIS_OP_N = 0, /* no transpose */
  AEGIS_OP_T = 1, /* transpose */
  AEGIS_OP_C = 2  /* conjugate transpose (same as T for real types) */
} aegisOperation_t;

typedef enum {
  AEGIS_POINTER_MODE_HOST = 0,  /* alpha and beta are read from host memory at call time */
  AEGIS_POINTER_MODE_DEVICE = 1 /* alpha and beta are read by the kernels from device memory */
} aegisPointerMode_t;

/* Shape classes used by GEMM dispatch; the tuning table maps each to a kernel. */
typedef enum {
  AEGIS_SHAPE_SMALL = 0,  /* few tiles: latency bound */
  AEGIS_SHAPE_MEDIUM = 1, /* up to about one wave of large tiles */
  AEGIS_SHAPE_LARGE = 2,
  AEGIS_SHAPE_HUGE = 3,
  AEGIS_SHAPE_TALL = 4, /* m much larger than n */
  AEGIS_SHAPE_WIDE = 5, /* n much larger than m */
  AEGIS_SHAPE_COUNT = 6
} aegisShapeClass_t;

typedef struct aegisContext* aegisHandle_t;

/* ---- status, version ---------------------------------------------------------------- */
AEGIS_API const char* aegisGetStatusName(aegisStatus_t status);   /* "AEGIS_STATUS_..." */
AEGIS_API const char* aegisGetStatusString(aegisStatus_t status); /* one-line description */
AEGIS_API int aegisGetVersion(void); /* MAJOR * 10000 + MINOR * 100 + PATCH */

/* ---- handle --------------------------------------------------------------------------- */
/* Binds the handle to the current device. Returns AEGIS_STATUS_NO_DEVICE where no GPU
 * (or no driver) exists; *handle is then set to NULL. */
AEGIS_API aegisStatus_t aegisCreate(aegisHandle_t* handle);
AEGIS_API aegisStatus_t aegisDestroy(aegisHandle_t handle);
AEGIS_API aegisStatus_t aegisSetStream(aegisHandle_t handle, cudaStream_t stream);
AEGIS_API aegisStatus_t aegisGetStream(aegisHandle_t handle, cudaStream_t* stream);
AEGIS_API aegisStatus_t aegisSetPointerMode(aegisHandle_t handle, aegisPointerMode_t mode);
AEGIS_API aegisStatus_t aegisGetPointerMode(aegisHandle_t handle, aegisPointerMode_t* mode);
/* Workspace used by routines that need scratch memory (split-K partial sums).
 * workspace = NULL, bytes = 0 returns to the handle's own workspace. The memory must stay
 * valid until the work queued on the handle's stream has finished. */
AEGIS_API aegisStatus_t aegisSetWorkspace(aegisHandle_t handle, void* workspace, size_t bytes);
AEGIS_API aegisStatus_t aegisGetWorkspaceSize(aegisHandle_t handle, size_t* bytes);
/* Text of the last error reported on this handle ("" if none). Valid until the next call
 * on the handle. */
AEGIS_API const char* aegisGetLastErrorString(aegisHandle_t handle);

/* ---- level 3 ---------------------------------------------------------------------------- */
/* C = alpha * op(A) * op(B) + beta * C, reference-BLAS semantics. beta = 0 never reads C. */
AEGIS_API aegisStatus_t aegisSgemm(aegisHandle_t handle, aegisOperation_t transa,
                                   aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                                   const float* alpha, const float* A, int64_t lda,
                                   const float* B, int64_t ldb, const float* beta, float* C,
                                   int64_t ldc);

/* ---- dispatch introspection and tuning (used by aegis-tune, aegis-bench, tests) -------- */
/* Shape class dispatch assigns to an m x n x k product. Pure host function. */
AEGIS_API aegisShapeClass_t aegisGemmShapeClass(int64_t m, int64_t n, int64_t k);
AEGIS_API const char* aegisShapeClassName(aegisShapeClass_t shape_class);
/* SGEMM kernel configurations built into this library, by index (NULL past the end). */
AEGIS_API int aegisSgemmConfigCount(void);
AEGIS_API const char* aegisSgemmConfigName(int index);
/* Makes every following aegisSgemm on this handle act as if the tuning table row for its
 * shape class were (config, max_split): the named configuration, split-K up to max_split
 * where the grid would not fill the GPU (1: never split; 0: the table row's own limit).
 * config = NULL clears the override. An unknown name gives AEGIS_STATUS_INVALID_VALUE. */
AEGIS_API aegisStatus_t aegisSetSgemmOverride(aegisHandle_t handle, const char* config,
                                              int max_split);
/* Kernel (with its transposes, e.g. "sgemm_simt_nt_128x128x8_w32x64_t8x8") and split-K
 * factor used by the last aegisSgemm on this handle; "" and 0 if that call launched
 * nothing (a quick return or an error). */
AEGIS_API aegisStatus_t aegisGetLastSgemmChoice(aegisHandle_t handle, const char** config,
                                                int* split_k);
/* Name of the tuning table dispatch uses on this handle's device ("default" if the device
 * has no table of its own). */
AEGIS_API const char* aegisGetTuningTableName(aegisHandle_t handle);

#ifdef __cplusplus
}
#endif

#endif /* AEGIS_AEGIS_H */
