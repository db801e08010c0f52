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

#include <cuComplex.h>
#include <cuda_fp16.h>
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

/* Which triangle of a symmetric or Hermitian matrix is stored (and read). */
typedef enum {
  AEGIS_FILL_MODE_LOWER = 0,
  AEGIS_FILL_MODE_UPPER = 1
} aegisFillMode_t;

/* How routines that split a sum over several thread blocks combine the pieces
 * (level-2 BLAS). DETERMINISTIC (the default): partial sums go to a workspace and are added
 * in a fixed order, so a call gives the same bits every run. ATOMICS: partial sums are added
 * into the output with atomic operations: fastest, but the order of the additions, and so
 * the last bits of the result, may change from run to run. */
typedef enum {
  AEGIS_REDUCTION_DETERMINISTIC = 0,
  AEGIS_REDUCTION_ATOMICS = 1
} aegisReductionMode_t;

/* Fault tolerance of GEMM (algorithm-based: checksums of the operands are encoded as the
 * tiles are loaded, checksums of each output tile are updated through the K loop and
 * compared with the accumulators). OFF runs the plain kernels. DETECT counts faults in the
 * handle's statistics and leaves the result as computed. CORRECT repairs a single wrong
 * element per tile in place and recomputes any tile whose fault pattern cannot be located,
 * so the result is never silently wrong. Non-finite inputs are not faults: they propagate
 * as IEEE arithmetic says and are counted apart. */
typedef enum {
  AEGIS_FT_OFF = 0,
  AEGIS_FT_DETECT = 1,
  AEGIS_FT_CORRECT = 2
} aegisFtMode_t;

/* What one pair of checksums covers, fused into the SGEMM kernel: BLOCK (the default) a
 * thread block's tile of C, WARP a warp's part of it, THREAD a thread's fragment. Finer
 * levels cost more reference checksums and repair more: one wrong element per covered piece
 * per check. NONFUSED: a plain GEMM between separate encode and verify kernels, for
 * comparison. docs/fault-tolerance.md gives the costs. */
typedef enum {
  AEGIS_FT_LEVEL_BLOCK = 0,
  AEGIS_FT_LEVEL_WARP = 1,
  AEGIS_FT_LEVEL_THREAD = 2,
  AEGIS_FT_LEVEL_NONFUSED = 3
} aegisFtLevel_t;

typedef enum {
  AEGIS_FAULT_BITFLIP = 0, /* flip bit `bit` (0-31) of the value */
  AEGIS_FAULT_ADD = 1      /* add `value` to the value */
} aegisFaultKind_t;

typedef enum {
  AEGIS_FAULT_TARGET_ACCUMULATOR = 0,    /* the accumulator of C(row, col) */
  AEGIS_FAULT_TARGET_COLUMN_CHECKSUM = 1, /* the column checksum of column col in its tile */
  AEGIS_FAULT_TARGET_ROW_CHECKSUM = 2     /* the row checksum of row row in its tile */
} aegisFaultTarget_t;

/* k_step of a fault that hits the output value after alpha/beta scaling, before the store. */
#define AEGIS_FAULT_K_EPILOGUE (-1)

/* One injected fault. It fires in the `call`-th FT GEMM on the handle counted from the
 * aegisInjectFaults call that armed it (0: the next one), in the tile holding C(row, col)
 * (0-based), after the k_step-th K tile of that tile's K loop (a k_step past the last K tile
 * means the last one; AEGIS_FAULT_K_EPILOGUE: in the epilogue). */
typedef struct {
  int64_t call;
  int64_t row, col;
  int64_t k_step;
  aegisFaultKind_t kind;
  aegisFaultTarget_t target;
  int bit;     /* AEGIS_FAULT_BITFLIP: 0 (mantissa LSB) to 31 (sign) */
  float value; /* AEGIS_FAULT_ADD */
} aegisFault_t;

typedef enum {
  AEGIS_FAULT_ACTION_REPORTED = 0,   /* DETECT mode: counted, result left as computed */
  AEGIS_FAULT_ACTION_CORRECTED = 1,  /* the located element was repaired in place */
  AEGIS_FAULT_ACTION_RECOMPUTED = 2, /* the tile was computed again */
  AEGIS_FAULT_ACTION_UNRECOVERED = 3 /* the tile still failed its check after recomputing */
} aegisFaultAction_t;

/* A detected fault. row/col: the located element of C, or -1 where the pattern did not
 * locate one (e.g. two bad columns). */
typedef struct {
  int64_t call;      /* index of the FT GEMM call on the handle (0: its first) */
  int64_t tile_row;  /* first row and column of the tile */
  int64_t tile_col;
  int64_t row, col;
  int64_t k_step;    /* K tiles done when the check ran; AEGIS_FAULT_K_EPILOGUE: epilogue */
  float residual;    /* checksum minus sum of the accumulators (largest bad one) */
  aegisFaultAction_t action;
} aegisFaultRecord_t;

#define AEGIS_FT_MAX_RECORDS 16

typedef struct {
  int64_t calls;       /* FT GEMM calls made on the handle */
  int64_t checks;      /* tile checks run (K-loop and epilogue checks of every tile) */
  int64_t detected;    /* checks that found a fault */
  int64_t corrected;   /* faults repaired in place */
  int64_t recomputed;  /* tiles computed again */
  int64_t unrecovered; /* tiles that failed again after recomputing (CORRECT mode) */
  int64_t nonfinite;   /* tile checks skipped because the inputs were not finite */
  int64_t record_count;                           /* faults recorded since the last reset */
  aegisFaultRecord_t records[AEGIS_FT_MAX_RECORDS]; /* the last min(record_count, 16) */
} aegisFtStats_t;

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
AEGIS_API aegisStatus_t aegisSetReductionMode(aegisHandle_t handle, aegisReductionMode_t mode);
AEGIS_API aegisStatus_t aegisGetReductionMode(aegisHandle_t handle, aegisReductionMode_t* mode);
/* Text of the last error reported on this handle ("" if none). Valid until the next call
 * on the handle. */
AEGIS_API const char* aegisGetLastErrorString(aegisHandle_t handle);

/* ---- fault tolerance ------------------------------------------------------------------- */
AEGIS_API aegisStatus_t aegisSetFtMode(aegisHandle_t handle, aegisFtMode_t mode);
AEGIS_API aegisStatus_t aegisGetFtMode(aegisHandle_t handle, aegisFtMode_t* mode);
AEGIS_API aegisStatus_t aegisSetFtLevel(aegisHandle_t handle, aegisFtLevel_t level);
AEGIS_API aegisStatus_t aegisGetFtLevel(aegisHandle_t handle, aegisFtLevel_t* level);
/* Check every output tile after each k_tiles K tiles as well as at the end (0, the
 * default: once, after the whole K loop, which already protects all of it; a shorter
 * interval repairs faults before they can pile up in one tile, at the cost of more checks). */
AEGIS_API aegisStatus_t aegisSetFtVerifyInterval(aegisHandle_t handle, int64_t k_tiles);
AEGIS_API aegisStatus_t aegisGetFtVerifyInterval(aegisHandle_t handle, int64_t* k_tiles);
/* Arms `count` faults (at most 64 pending per handle) for the following FT GEMM calls.
 * Faults armed for a call are consumed by it. No fault armed means no cost. */
AEGIS_API aegisStatus_t aegisInjectFaults(aegisHandle_t handle, const aegisFault_t* faults,
                                          int count);
AEGIS_API aegisStatus_t aegisClearFaults(aegisHandle_t handle);
/* Copies the handle's fault statistics to *stats. Synchronizes: waits for the work queued on
 * the handle's stream. */
AEGIS_API aegisStatus_t aegisGetFtStatsSync(aegisHandle_t handle, aegisFtStats_t* stats);
/* Zeroes the statistics (ordered on the handle's stream) and restarts the call count. */
AEGIS_API aegisStatus_t aegisResetFtStats(aegisHandle_t handle);

/* ---- level 3 ---------------------------------------------------------------------------- */
/* C = alpha * op(A) * op(B) + beta * C, reference-BLAS semantics. beta = 0 never reads C.
 * With a fault-tolerance mode set (aegisSetFtMode) the product and its epilogue are checked
 * tile by tile and never split along K. */
AEGIS_API aegisStatus_t aegisSgemm(aegisHandle_t handle, aegisOperation_t transa,
                                   aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                                   const float* alpha, const float* A, int64_t lda,
                                   const float* B, int64_t ldb, const float* beta, float* C,
                                   int64_t ldc);

/* Element types of the mixed-precision GEMM (aegisGemmEx). */
typedef enum {
  AEGIS_R_16F = 0,  /* IEEE binary16 (__half) */
  AEGIS_R_16BF = 1, /* bfloat16 (__nv_bfloat16) */
  AEGIS_R_32F = 2   /* IEEE binary32 (float) */
} aegisDataType_t;

/* Accumulation type of aegisGemmEx: products are summed in FP32 and alpha/beta applied in
 * FP32 (the only type this build provides). */
typedef enum {
  AEGIS_COMPUTE_32F = 0
} aegisComputeType_t;

/* A half-precision scalar as the C API sees it: __half in C++, its raw bits in C
 * (same size and alignment). */
#ifdef __cplusplus
typedef __half aegisHalf_t;
#else
typedef __half_raw aegisHalf_t;
#endif

/* D = alpha * op(A) * op(B) + beta * C on the tensor cores, written over C: A and B are both
 * AEGIS_R_16F or both AEGIS_R_16BF, C is AEGIS_R_16F, AEGIS_R_16BF or AEGIS_R_32F; products
 * are accumulated in FP32 and alpha, beta (float, host or device per the pointer mode) are
 * applied in FP32 before the one rounding to C's type. cuBLAS argument order (cublasGemmEx
 * without the algorithm): 1 transa 2 transb 3 m 4 n 5 k 6 alpha 7 A 8 Atype 9 lda 10 B
 * 11 Btype 12 ldb 13 beta 14 C 15 Ctype 16 ldc 17 computeType. Any m, n, k, ld and pointer
 * alignment work; on Hopper, 16-byte aligned A and B with lda, ldb multiples of 8 take the
 * TMA + wgmma path, anything else a slower mma.sync path. beta = 0 never reads C. */
AEGIS_API aegisStatus_t aegisGemmEx(aegisHandle_t handle, aegisOperation_t transa,
                                    aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                                    const float* alpha, const void* A, aegisDataType_t Atype,
                                    int64_t lda, const void* B, aegisDataType_t Btype,
                                    int64_t ldb, const float* beta, void* C,
                                    aegisDataType_t Ctype, int64_t ldc,
                                    aegisComputeType_t computeType);

/* aegisGemmEx with FP16 A, B and C and half-precision alpha, beta (host or device per the
 * pointer mode). Unlike cublasHgemm the sum is accumulated in FP32. Parameters as
 * aegisSgemm: 1 transa 2 transb 3 m 4 n 5 k 6 alpha 7 A 8 lda 9 B 10 ldb 11 beta 12 C
 * 13 ldc. */
AEGIS_API aegisStatus_t aegisHgemm(aegisHandle_t handle, aegisOperation_t transa,
                                   aegisOperation_t transb, int64_t m, int64_t n, int64_t k,
                                   const aegisHalf_t* alpha, const aegisHalf_t* A, int64_t lda,
                                   const aegisHalf_t* B, int64_t ldb, const aegisHalf_t* beta,
                                   aegisHalf_t* C, int64_t ldc);

/* ---- level 2 ---------------------------------------------------------------------------- */
/* y = alpha * op(A) * x + beta * y, A m x n, reference-BLAS semantics: incx and incy may be
 * negative (the vector then starts at its last element in memory), beta = 0 never reads y.
 * Parameters (reference numbering): 1 trans 2 m 3 n 4 alpha 5 A 6 lda 7 x 8 incx 9 beta
 * 10 y 11 incy. */
AEGIS_API aegisStatus_t aegisSgemv(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                   int64_t n, const float* alpha, const float* A, int64_t lda,
                                   const float* x, int64_t incx, const float* beta, float* y,
                                   int64_t incy);
AEGIS_API aegisStatus_t aegisDgemv(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                   int64_t n, const double* alpha, const double* A, int64_t lda,
                                   const double* x, int64_t incx, const double* beta, double* y,
                                   int64_t incy);
AEGIS_API aegisStatus_t aegisCgemv(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                   int64_t n, const cuComplex* alpha, const cuComplex* A,
                                   int64_t lda, const cuComplex* x, int64_t incx,
                                   const cuComplex* beta, cuComplex* y, int64_t incy);
AEGIS_API aegisStatus_t aegisZgemv(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                   int64_t n, const cuDoubleComplex* alpha,
                                   const cuDoubleComplex* A, int64_t lda, const cuDoubleComplex* x,
                                   int64_t incx, const cuDoubleComplex* beta, cuDoubleComplex* y,
                                   int64_t incy);

/* y = alpha * A * x + beta * y, A n x n symmetric (SYMV) or Hermitian (HEMV), only the uplo
 * triangle is read (HEMV takes the imaginary part of the diagonal as zero).
 * Parameters: 1 uplo 2 n 3 alpha 4 A 5 lda 6 x 7 incx 8 beta 9 y 10 incy. */
AEGIS_API aegisStatus_t aegisSsymv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const float* alpha, const float* A, int64_t lda,
                                   const float* x, int64_t incx, const float* beta, float* y,
                                   int64_t incy);
AEGIS_API aegisStatus_t aegisDsymv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const double* alpha, const double* A, int64_t lda,
                                   const double* x, int64_t incx, const double* beta, double* y,
                                   int64_t incy);
AEGIS_API aegisStatus_t aegisCsymv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const cuComplex* alpha, const cuComplex* A, int64_t lda,
                                   const cuComplex* x, int64_t incx, const cuComplex* beta,
                                   cuComplex* y, int64_t incy);
AEGIS_API aegisStatus_t aegisZsymv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const cuDoubleComplex* alpha, const cuDoubleComplex* A,
                                   int64_t lda, const cuDoubleComplex* x, int64_t incx,
                                   const cuDoubleComplex* beta, cuDoubleComplex* y, int64_t incy);
AEGIS_API aegisStatus_t aegisChemv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const cuComplex* alpha, const cuComplex* A, int64_t lda,
                                   const cuComplex* x, int64_t incx, const cuComplex* beta,
                                   cuComplex* y, int64_t incy);
AEGIS_API aegisStatus_t aegisZhemv(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                   const cuDoubleComplex* alpha, const cuDoubleComplex* A,
                                   int64_t lda, const cuDoubleComplex* x, int64_t incx,
                                   const cuDoubleComplex* beta, cuDoubleComplex* y, int64_t incy);

/* Submatrix (offset) variants, as KBLAS: A is the full matrix and the routine works on
 * the block that starts at row offset_r, column offset_c (SYMV/HEMV: at offset, offset,
 * on the diagonal). The result is that of the plain routine called with
 * A + offset_r + offset_c * lda, but the kernels keep their loads aligned to the full
 * matrix, which is faster when that pointer would not be 16-byte aligned. lda must cover
 * offset_r + m rows. Parameters 12 offset_r 13 offset_c (SYMV/HEMV: 11 offset). */
AEGIS_API aegisStatus_t aegisSgemvOffset(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                         int64_t n, const float* alpha, const float* A,
                                         int64_t lda, const float* x, int64_t incx,
                                         const float* beta, float* y, int64_t incy,
                                         int64_t offset_r, int64_t offset_c);
AEGIS_API aegisStatus_t aegisDgemvOffset(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                         int64_t n, const double* alpha, const double* A,
                                         int64_t lda, const double* x, int64_t incx,
                                         const double* beta, double* y, int64_t incy,
                                         int64_t offset_r, int64_t offset_c);
AEGIS_API aegisStatus_t aegisCgemvOffset(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                         int64_t n, const cuComplex* alpha, const cuComplex* A,
                                         int64_t lda, const cuComplex* x, int64_t incx,
                                         const cuComplex* beta, cuComplex* y, int64_t incy,
                                         int64_t offset_r, int64_t offset_c);
AEGIS_API aegisStatus_t aegisZgemvOffset(aegisHandle_t handle, aegisOperation_t trans, int64_t m,
                                         int64_t n, const cuDoubleComplex* alpha,
                                         const cuDoubleComplex* A, int64_t lda,
                                         const cuDoubleComplex* x, int64_t incx,
                                         const cuDoubleComplex* beta, cuDoubleComplex* y,
                                         int64_t incy, int64_t offset_r, int64_t offset_c);
AEGIS_API aegisStatus_t aegisSsymvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const float* alpha, const float* A, int64_t lda,
                                         const float* x, int64_t incx, const float* beta,
                                         float* y, int64_t incy, int64_t offset);
AEGIS_API aegisStatus_t aegisDsymvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const double* alpha, const double* A, int64_t lda,
                                         const double* x, int64_t incx, const double* beta,
                                         double* y, int64_t incy, int64_t offset);
AEGIS_API aegisStatus_t aegisCsymvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const cuComplex* alpha, const cuComplex* A,
                                         int64_t lda, const cuComplex* x, int64_t incx,
                                         const cuComplex* beta, cuComplex* y, int64_t incy,
                                         int64_t offset);
AEGIS_API aegisStatus_t aegisZsymvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const cuDoubleComplex* alpha, const cuDoubleComplex* A,
                                         int64_t lda, const cuDoubleComplex* x, int64_t incx,
                                         const cuDoubleComplex* beta, cuDoubleComplex* y,
                                         int64_t incy, int64_t offset);
AEGIS_API aegisStatus_t aegisChemvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const cuComplex* alpha, const cuComplex* A,
                                         int64_t lda, const cuComplex* x, int64_t incx,
                                         const cuComplex* beta, cuComplex* y, int64_t incy,
                                         int64_t offset);
AEGIS_API aegisStatus_t aegisZhemvOffset(aegisHandle_t handle, aegisFillMode_t uplo, int64_t n,
                                         const cuDoubleComplex* alpha, const cuDoubleComplex* A,
                                         int64_t lda, const cuDoubleComplex* x, int64_t incx,
                                         const cuDoubleComplex* beta, cuDoubleComplex* y,
                                         int64_t incy, int64_t offset);

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
/* Tensor-core GEMM kernels (aegisGemmEx, aegisHgemm) built into this library, by index (NULL
 * past the end), e.g. "gemm_sm90_128x256x64_s4" or "gemm_sm80_mma_sync". */
AEGIS_API int aegisGemmExConfigCount(void);
AEGIS_API const char* aegisGemmExConfigName(int index);
/* The output tile (rows x columns of C) one thread block of kernel `index` computes, and the
 * thread blocks it keeps on one SM: how many tiles a call has, and how many run at once.
 * AEGIS_STATUS_INVALID_VALUE for an index out of range or a NULL output. */
AEGIS_API aegisStatus_t aegisGemmExConfigTile(int index, int* tile_m, int* tile_n,
                                              int* blocks_per_sm);
/* Makes every following aegisGemmEx / aegisHgemm on this handle use the named kernel where
 * it can run the call (a TMA kernel needs 16-byte aligned A, B and lda, ldb multiples of 8
 * elements; where it cannot, dispatch falls back as without the override). config = NULL
 * clears the override. An unknown name gives AEGIS_STATUS_INVALID_VALUE. */
AEGIS_API aegisStatus_t aegisSetGemmExOverride(aegisHandle_t handle, const char* config);
/* Kernel and split-K factor used by the last aegisGemmEx / aegisHgemm on this handle ("" and
 * 0 if that call launched no product: a quick return, C = beta * C only, or an error).
 * Either output may be NULL. */
AEGIS_API aegisStatus_t aegisGetLastGemmExChoice(aegisHandle_t handle, const char** config,
                                                 int* split_k);
/* Level-2 kernel configurations built into this library, by index (NULL past the end),
 * e.g. "sgemv_t_nb128_q4". */
AEGIS_API int aegisBlas2ConfigCount(void);
AEGIS_API const char* aegisBlas2ConfigName(int index);
/* Makes every following level-2 call on this handle whose routine matches the named
 * configuration (e.g. any SGEMV with trans = N for "sgemv_n_...") use that configuration
 * with y_split thread blocks per block row (0: chosen from the size). config = NULL clears
 * the override. An unknown name gives AEGIS_STATUS_INVALID_VALUE. */
AEGIS_API aegisStatus_t aegisSetBlas2Override(aegisHandle_t handle, const char* config,
                                              int y_split);
/* Configuration and Y split used by the last level-2 call on this handle that launched
 * work ("" and 0 otherwise). */
AEGIS_API aegisStatus_t aegisGetLastBlas2Choice(aegisHandle_t handle, const char** config,
                                                int* y_split);
/* Where the split sums of a GEMV meet. WORKSPACE: in the deterministic mode each block
 * stores its partial sums, and the last block of a panel to arrive adds them in block order;
 * in the atomics mode each block adds its sums into y (scaled by beta first). CLUSTER, either
 * mode: the blocks of a panel form a thread-block cluster (sm_90 and later, splits of 2 to
 * 16) and the first adds the others' sums, pushed into its shared memory, in block order
 * (the same bits on every run; in the atomics mode where the tuning table found it faster
 * than the atomic adds). AUTO: as the tuning table says. SYMV/HEMV are unaffected. */
/* The largest GEMV split (thread blocks per panel) whose sums can meet in a cluster. */
#define AEGIS_BLAS2_CLUSTER_SPLIT_MAX 16
typedef enum {
  AEGIS_BLAS2_SUMS_AUTO = 0,
  AEGIS_BLAS2_SUMS_WORKSPACE = 1,
  AEGIS_BLAS2_SUMS_CLUSTER = 2
} aegisBlas2Sums_t;
/* Makes every following GEMV on this handle combine its split sums as `sums` says where it
 * can (CLUSTER: where the device and the split allow, else WORKSPACE); AUTO restores the
 * tuning table's choice. With aegisSetBlas2Override, for tuning. */
AEGIS_API aegisStatus_t aegisSetBlas2SumsOverride(aegisHandle_t handle, aegisBlas2Sums_t sums);
/* How the last level-2 call on this handle that launched work combined its split sums:
 * WORKSPACE or CLUSTER for a deterministic GEMV split over several blocks, CLUSTER for an
 * atomics-mode GEMV whose split met in a cluster, AUTO otherwise (one block per panel,
 * atomic adds, SYMV/HEMV, no work). */
AEGIS_API aegisStatus_t aegisGetLastBlas2Sums(aegisHandle_t handle, aegisBlas2Sums_t* sums);
/* Name of the tuning table dispatch uses on this handle: its device's ("default" if the
 * device has no table of its own) unless aegisSetTuningTable named another. */
AEGIS_API const char* aegisGetTuningTableName(aegisHandle_t handle);
/* Makes every following call on this handle choose its kernels from the tuning table called
 * `name` ("h200", "default") instead of its device's: to run one GPU's tuned choices on
 * another GPU of the same architecture (an H200's table on an H100, say), or to compare
 * tables. name = NULL returns to the device's table. An unknown name gives
 * AEGIS_STATUS_INVALID_VALUE, and the table in use stays. */
AEGIS_API aegisStatus_t aegisSetTuningTable(aegisHandle_t handle, const char* name);

#ifdef __cplusplus
}
#endif

#endif /* AEGIS_AEGIS_H */
