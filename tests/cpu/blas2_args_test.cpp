// Level-2 argument checks, quick returns, reduction mode and dispatch tables, on a handle
// bound to no device (SUCCESS there proves that no device work was attempted; reaching the
// device gives EXECUTION_FAILED).
//
// Positions (reference BLAS, handle not counted):
//   gemv: 1 trans 2 m 3 n 4 alpha 5 A 6 lda 7 x 8 incx 9 beta 10 y 11 incy
//         (Offset variants: 12 offset_r 13 offset_c)
//   symv/hemv: 1 uplo 2 n 3 alpha 4 A 5 lda 6 x 7 incx 8 beta 9 y 10 incy (11 offset)
#include <gtest/gtest.h>

#include <cuComplex.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <set>
#include <type_traits>
#include <utility>
#include <string>
#include <vector>

#include "aegis/aegis.h"
#include "blas2/blas2_launch.h"
#include "deviceless.h"
#include "dispatch/blas2_dispatch.h"
#include "dispatch/tuning_table.h"

namespace aegis_test {
namespace {

double g_storage[512];

template <typename T>
T scalar(double v) {
  if constexpr (std::is_same_v<T, cuComplex>) return make_cuComplex(float(v), 0.0f);
  else if constexpr (std::is_same_v<T, cuDoubleComplex>) return make_cuDoubleComplex(v, 0.0);
  else return T(v);
}

// ---- GEMV ---------------------------------------------------------------------------------

template <typename T>
struct GemvArgs {
  const char* name;
  aegisOperation_t trans = AEGIS_OP_N;
  int64_t m = 4, n = 6;
  T one = scalar<T>(1), zero = scalar<T>(0), half = scalar<T>(0.5);
  const T* alpha = &one;
  const T* A = reinterpret_cast<const T*>(g_storage);
  int64_t lda = 4;
  const T* x = reinterpret_cast<const T*>(g_storage);
  int64_t incx = 1;
  const T* beta = &zero;
  T* y = reinterpret_cast<T*>(g_storage);
  int64_t incy = 1;
  bool offset = false;
  int64_t offset_r = 0, offset_c = 0;
  GemvArgs() = default;
  GemvArgs(const GemvArgs& o) { *this = o; }
  GemvArgs& operator=(const GemvArgs& o) {
    std::memcpy(static_cast<void*>(this), &o, sizeof(*this));
    // Scalars point into this object.
    if (o.alpha == &o.one) alpha = &one;
    if (o.alpha == &o.zero) alpha = &zero;
    if (o.beta == &o.zero) beta = &zero;
    if (o.beta == &o.one) beta = &one;
    if (o.beta == &o.half) beta = &half;
    return *this;
  }
  aegisStatus_t call(aegisHandle_t h) const;
};

#define AEGIS_GEMV_CALL(T, FN)                                                                \
  template <>                                                                                 \
  aegisStatus_t GemvArgs<T>::call(aegisHandle_t h) const {                                    \
    return offset ? FN##Offset(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy,         \
                               offset_r, offset_c)                                            \
                  : FN(h, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);                \
  }
AEGIS_GEMV_CALL(float, aegisSgemv)
AEGIS_GEMV_CALL(double, aegisDgemv)
AEGIS_GEMV_CALL(cuComplex, aegisCgemv)
AEGIS_GEMV_CALL(cuDoubleComplex, aegisZgemv)
#undef AEGIS_GEMV_CALL

template <typename T>
GemvArgs<T> gemv_base(const char* name) {
  GemvArgs<T> a;
  a.name = name;
  return a;
}

template <typename T>
class GemvArgsTest : public DevicelessHandle {
 protected:
  void expect_message(const GemvArgs<T>& a, const std::string& detail) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(last_error(), std::string(a.name) + (a.offset ? "Offset" : "") + ": parameter " + detail);
  }
  void expect_position(const GemvArgs<T>& a, int position) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    const std::string prefix = std::string(a.name) + (a.offset ? "Offset" : "") +
                               ": parameter " + std::to_string(position) + " (";
    EXPECT_PRED2(starts_with, last_error(), prefix);
  }
  static const char* name() {
    if constexpr (std::is_same_v<T, float>) return "aegisSgemv";
    else if constexpr (std::is_same_v<T, double>) return "aegisDgemv";
    else if constexpr (std::is_same_v<T, cuComplex>) return "aegisCgemv";
    else return "aegisZgemv";
  }
  GemvArgs<T> base() const { return gemv_base<T>(name()); }

  static std::vector<std::function<void(GemvArgs<T>&)>> breakers() {
    return {
        [](GemvArgs<T>& a) { a.trans = static_cast<aegisOperation_t>(5); },  // 1
        [](GemvArgs<T>& a) { a.m = -1; },                                     // 2
        [](GemvArgs<T>& a) { a.n = -1; },                                     // 3
        [](GemvArgs<T>& a) { a.alpha = nullptr; },                            // 4
        [](GemvArgs<T>& a) { a.A = nullptr; },                                // 5
        [](GemvArgs<T>& a) { a.lda = 0; },                                    // 6
        [](GemvArgs<T>& a) { a.x = nullptr; },                                // 7
        [](GemvArgs<T>& a) { a.incx = 0; },                                   // 8
        [](GemvArgs<T>& a) { a.beta = nullptr; },                             // 9
        [](GemvArgs<T>& a) { a.y = nullptr; },                                // 10
        [](GemvArgs<T>& a) { a.incy = 0; },                                   // 11
    };
  }
};

using GemvTypes = ::testing::Types<float, double, cuComplex, cuDoubleComplex>;
TYPED_TEST_SUITE(GemvArgsTest, GemvTypes);

TYPED_TEST(GemvArgsTest, ValidArgumentsReachTheDevice) {
  for (aegisOperation_t t : {AEGIS_OP_N, AEGIS_OP_T, AEGIS_OP_C}) {
    auto a = this->base();
    a.trans = t;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED) << t;
    a.incx = -3;
    a.incy = -2;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED) << t;
    a.offset = true;
    a.lda = 9;
    a.offset_r = 5;
    a.offset_c = 2;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED) << t;
  }
}

TYPED_TEST(GemvArgsTest, Messages) {
  auto a = this->base();
  a.trans = static_cast<aegisOperation_t>(7);
  this->expect_message(a, "1 (trans = 7) must be AEGIS_OP_N, AEGIS_OP_T or AEGIS_OP_C");
  a = this->base();
  a.m = -1;
  this->expect_message(a, "2 (m = -1) must be >= 0");
  a = this->base();
  a.n = -2;
  this->expect_message(a, "3 (n = -2) must be >= 0");
  a = this->base();
  a.alpha = nullptr;
  this->expect_message(a, "4 (alpha = NULL) must not be NULL");
  a = this->base();
  a.A = nullptr;
  this->expect_message(a, "5 (A = NULL) must not be NULL when m, n > 0 and alpha != 0");
  a = this->base();
  a.lda = 3;
  this->expect_message(a, "6 (lda = 3) must be >= max(1, m = 4)");
  a.trans = AEGIS_OP_T;  // lda depends on m whatever trans is
  this->expect_message(a, "6 (lda = 3) must be >= max(1, m = 4)");
  a = this->base();
  a.m = 0;
  a.lda = 0;
  this->expect_message(a, "6 (lda = 0) must be >= max(1, m = 0)");
  a = this->base();
  a.x = nullptr;
  this->expect_message(a, "7 (x = NULL) must not be NULL when m, n > 0 and alpha != 0");
  a = this->base();
  a.incx = 0;
  this->expect_message(a, "8 (incx = 0) must not be 0");
  a = this->base();
  a.beta = nullptr;
  this->expect_message(a, "9 (beta = NULL) must not be NULL");
  a = this->base();
  a.y = nullptr;
  this->expect_message(a, "10 (y = NULL) must not be NULL when m, n > 0");
  a = this->base();
  a.incy = 0;
  this->expect_message(a, "11 (incy = 0) must not be 0");
  a = this->base();
  a.m = 5000000000LL;
  a.lda = 3;
  this->expect_message(a, "6 (lda = 3) must be >= max(1, m = 5000000000)");
}

TYPED_TEST(GemvArgsTest, OffsetMessages) {
  auto a = this->base();
  a.offset = true;
  a.offset_r = 2;
  this->expect_message(a, "6 (lda = 4) must be >= max(1, offset_r + m = 6)");
  a.lda = 6;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
  a.offset_r = -1;
  this->expect_message(a, "12 (offset_r = -1) must be >= 0");
  a.offset_r = 0;
  a.offset_c = -4;
  this->expect_message(a, "13 (offset_c = -4) must be >= 0");
}

TYPED_TEST(GemvArgsTest, EachParameterAloneAndFirstOfEveryPair) {
  const auto b = this->breakers();
  for (int p = 1; p <= 11; ++p) {
    SCOPED_TRACE("parameter " + std::to_string(p));
    auto a = this->base();
    b[p - 1](a);
    this->expect_position(a, p);
    for (int q = p + 1; q <= 11; ++q) {
      SCOPED_TRACE("and parameter " + std::to_string(q));
      auto c = this->base();
      b[p - 1](c);
      b[q - 1](c);
      this->expect_position(c, p);
    }
  }
}

TYPED_TEST(GemvArgsTest, QuickReturns) {
  auto a = this->base();
  a.m = 0;
  a.A = nullptr;
  a.x = nullptr;
  a.y = nullptr;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_SUCCESS) << this->last_error();
  a = this->base();
  a.n = 0;
  a.y = nullptr;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_SUCCESS) << this->last_error();
  a = this->base();  // alpha = 0, beta = 1: nothing to do, A and x never referenced
  a.alpha = &a.zero;
  a.beta = &a.one;
  a.A = nullptr;
  a.x = nullptr;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_SUCCESS) << this->last_error();
  a.beta = &a.half;  // y = beta y is device work
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
  a.beta = &a.zero;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
}

TYPED_TEST(GemvArgsTest, DevicePointerModeCannotSeeAlpha) {
  ASSERT_EQ(aegisSetPointerMode(this->h_, AEGIS_POINTER_MODE_DEVICE), AEGIS_STATUS_SUCCESS);
  auto a = this->base();
  a.alpha = &a.zero;
  a.beta = &a.one;
  EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
  a.A = nullptr;
  this->expect_position(a, 5);
}

TEST(GemvNullHandle, IsNotInitialized) {
  const float one = 1.0f;
  EXPECT_EQ(aegisSgemv(nullptr, AEGIS_OP_N, 1, 1, &one, &one, 1, &one, 1, &one, nullptr, 1),
            AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisZhemv(nullptr, AEGIS_FILL_MODE_LOWER, 1, nullptr, nullptr, 0, nullptr, 0,
                       nullptr, nullptr, 0),
            AEGIS_STATUS_NOT_INITIALIZED);
}

// ---- SYMV / HEMV --------------------------------------------------------------------------

template <typename T>
using SymvFn = aegisStatus_t (*)(aegisHandle_t, aegisFillMode_t, int64_t, const T*, const T*,
                                 int64_t, const T*, int64_t, const T*, T*, int64_t);
template <typename T>
using SymvOffsetFn = aegisStatus_t (*)(aegisHandle_t, aegisFillMode_t, int64_t, const T*,
                                       const T*, int64_t, const T*, int64_t, const T*, T*,
                                       int64_t, int64_t);

template <typename T>
struct SymvArgs {
  std::string name;
  SymvFn<T> fn;
  SymvOffsetFn<T> offset_fn;
  aegisFillMode_t uplo = AEGIS_FILL_MODE_LOWER;
  int64_t n = 5;
  T one, zero;
  SymvArgs(std::string routine, SymvFn<T> f, SymvOffsetFn<T> of)
      : name(std::move(routine)), fn(f), offset_fn(of), one(scalar<T>(1)), zero(scalar<T>(0)) {}
  bool alpha_null = false, alpha_zero = false, beta_null = false, beta_one = false;
  const T* A = reinterpret_cast<const T*>(g_storage);
  int64_t lda = 5;
  const T* x = reinterpret_cast<const T*>(g_storage);
  int64_t incx = 1;
  T* y = reinterpret_cast<T*>(g_storage);
  int64_t incy = 1;
  bool offset = false;
  int64_t off = 0;
  aegisStatus_t call(aegisHandle_t h) const {
    const T* alpha = alpha_null ? nullptr : alpha_zero ? &zero : &one;
    const T* beta = beta_null ? nullptr : beta_one ? &one : &zero;
    return offset ? offset_fn(h, uplo, n, alpha, A, lda, x, incx, beta, y, incy, off)
                  : fn(h, uplo, n, alpha, A, lda, x, incx, beta, y, incy);
  }
};

template <typename T>
std::vector<SymvArgs<T>> symv_routines();
template <>
std::vector<SymvArgs<float>> symv_routines<float>() {
  return {SymvArgs<float>("aegisSsymv", aegisSsymv, aegisSsymvOffset)};
}
template <>
std::vector<SymvArgs<double>> symv_routines<double>() {
  return {SymvArgs<double>("aegisDsymv", aegisDsymv, aegisDsymvOffset)};
}
template <>
std::vector<SymvArgs<cuComplex>> symv_routines<cuComplex>() {
  return {SymvArgs<cuComplex>("aegisCsymv", aegisCsymv, aegisCsymvOffset),
          SymvArgs<cuComplex>("aegisChemv", aegisChemv, aegisChemvOffset)};
}
template <>
std::vector<SymvArgs<cuDoubleComplex>> symv_routines<cuDoubleComplex>() {
  return {SymvArgs<cuDoubleComplex>("aegisZsymv", aegisZsymv, aegisZsymvOffset),
          SymvArgs<cuDoubleComplex>("aegisZhemv", aegisZhemv, aegisZhemvOffset)};
}

template <typename T>
class SymvArgsTest : public DevicelessHandle {
 protected:
  void expect_message(const SymvArgs<T>& a, const std::string& detail) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_EQ(last_error(), a.name + (a.offset ? "Offset" : "") + ": parameter " + detail);
  }
  void expect_position(const SymvArgs<T>& a, int position) {
    EXPECT_EQ(a.call(h_), AEGIS_STATUS_INVALID_VALUE);
    EXPECT_PRED2(starts_with, last_error(),
                 a.name + (a.offset ? "Offset" : "") + ": parameter " + std::to_string(position) + " (");
  }
  static std::vector<std::function<void(SymvArgs<T>&)>> breakers() {
    return {
        [](SymvArgs<T>& a) { a.uplo = static_cast<aegisFillMode_t>(2); },  // 1
        [](SymvArgs<T>& a) { a.n = -1; },                                  // 2
        [](SymvArgs<T>& a) { a.alpha_null = true; },                       // 3
        [](SymvArgs<T>& a) { a.A = nullptr; },                             // 4
        [](SymvArgs<T>& a) { a.lda = 4; },                                 // 5
        [](SymvArgs<T>& a) { a.x = nullptr; },                             // 6
        [](SymvArgs<T>& a) { a.incx = 0; },                                // 7
        [](SymvArgs<T>& a) { a.beta_null = true; },                        // 8
        [](SymvArgs<T>& a) { a.y = nullptr; },                             // 9
        [](SymvArgs<T>& a) { a.incy = 0; },                                // 10
    };
  }
};
TYPED_TEST_SUITE(SymvArgsTest, GemvTypes);

TYPED_TEST(SymvArgsTest, Messages) {
  for (const auto& base : symv_routines<TypeParam>()) {
    SCOPED_TRACE(base.name);
    for (aegisFillMode_t uplo : {AEGIS_FILL_MODE_LOWER, AEGIS_FILL_MODE_UPPER}) {
      auto a = base;
      a.uplo = uplo;
      EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
    }
    auto a = base;
    a.uplo = static_cast<aegisFillMode_t>(3);
    this->expect_message(a, "1 (uplo = 3) must be AEGIS_FILL_MODE_LOWER or AEGIS_FILL_MODE_UPPER");
    a = base;
    a.n = -7;
    this->expect_message(a, "2 (n = -7) must be >= 0");
    a = base;
    a.alpha_null = true;
    this->expect_message(a, "3 (alpha = NULL) must not be NULL");
    a = base;
    a.A = nullptr;
    this->expect_message(a, "4 (A = NULL) must not be NULL when n > 0 and alpha != 0");
    a = base;
    a.lda = 3;
    this->expect_message(a, "5 (lda = 3) must be >= max(1, n = 5)");
    a = base;
    a.x = nullptr;
    this->expect_message(a, "6 (x = NULL) must not be NULL when n > 0 and alpha != 0");
    a = base;
    a.incx = 0;
    this->expect_message(a, "7 (incx = 0) must not be 0");
    a = base;
    a.beta_null = true;
    this->expect_message(a, "8 (beta = NULL) must not be NULL");
    a = base;
    a.y = nullptr;
    this->expect_message(a, "9 (y = NULL) must not be NULL when n > 0");
    a = base;
    a.incy = 0;
    this->expect_message(a, "10 (incy = 0) must not be 0");
    a = base;
    a.offset = true;
    a.off = 1;
    this->expect_message(a, "5 (lda = 5) must be >= max(1, offset + n = 6)");
    a.lda = 6;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
    a.off = -1;
    this->expect_message(a, "11 (offset = -1) must be >= 0");
  }
}

TYPED_TEST(SymvArgsTest, FirstFailingParameterOfEveryPair) {
  const auto b = this->breakers();
  for (const auto& base : symv_routines<TypeParam>()) {
    for (int p = 1; p <= 10; ++p)
      for (int q = p; q <= 10; ++q) {
        SCOPED_TRACE(base.name + " parameters " + std::to_string(p) + ", " + std::to_string(q));
        auto a = base;
        b[p - 1](a);
        b[q - 1](a);
        this->expect_position(a, p);
      }
  }
}

TYPED_TEST(SymvArgsTest, QuickReturns) {
  for (const auto& base : symv_routines<TypeParam>()) {
    SCOPED_TRACE(base.name);
    auto a = base;
    a.n = 0;
    a.A = nullptr;
    a.x = nullptr;
    a.y = nullptr;
    a.lda = 1;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_SUCCESS) << this->last_error();
    a = base;
    a.alpha_zero = true;
    a.beta_one = true;
    a.A = nullptr;
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_SUCCESS) << this->last_error();
    a.beta_one = false;  // y = 0 is device work
    EXPECT_EQ(a.call(this->h_), AEGIS_STATUS_EXECUTION_FAILED);
  }
}

// ---- reduction mode -----------------------------------------------------------------------

using ReductionMode = DevicelessHandle;

TEST_F(ReductionMode, DefaultIsDeterministicAndSettable) {
  aegisReductionMode_t mode = AEGIS_REDUCTION_ATOMICS;
  ASSERT_EQ(aegisGetReductionMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_REDUCTION_DETERMINISTIC);
  ASSERT_EQ(aegisSetReductionMode(h_, AEGIS_REDUCTION_ATOMICS), AEGIS_STATUS_SUCCESS);
  ASSERT_EQ(aegisGetReductionMode(h_, &mode), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(mode, AEGIS_REDUCTION_ATOMICS);
  EXPECT_EQ(aegisSetReductionMode(h_, static_cast<aegisReductionMode_t>(9)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetReductionMode: parameter 2 (mode = 9) must be AEGIS_REDUCTION_DETERMINISTIC or "
            "AEGIS_REDUCTION_ATOMICS");
  EXPECT_EQ(aegisGetReductionMode(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(aegisSetReductionMode(nullptr, AEGIS_REDUCTION_ATOMICS), AEGIS_STATUS_NOT_INITIALIZED);
}

// ---- configurations, tables, dispatch -----------------------------------------------------

TEST(Blas2Registry, NamesAreUniqueAndWellFormed) {
  const int count = aegisBlas2ConfigCount();
  ASSERT_GT(count, 0);
  std::set<std::string> names;
  for (int i = 0; i < count; ++i) {
    const char* name = aegisBlas2ConfigName(i);
    ASSERT_NE(name, nullptr);
    EXPECT_TRUE(names.insert(name).second) << "duplicate " << name;
    EXPECT_NE(std::string(name).find("_nb"), std::string::npos) << name;
    EXPECT_NE(aegis::blas2::find_blas2_instance(name), nullptr);
  }
  EXPECT_EQ(aegisBlas2ConfigName(count), nullptr);
  EXPECT_EQ(aegisBlas2ConfigName(-1), nullptr);
}

TEST(Blas2Tables, EveryRoutineHasABuiltConfigInEveryTable) {
  using aegis::blas2::Family;
  using aegis::blas2::Precision;
  for (const char* table_name : {"h200", "default"}) {
    const auto& table = aegis::dispatch::blas2_table(table_name);
    EXPECT_STREQ(table.name, table_name);
    for (int i = 0; i < table.row_count; ++i) {
      const auto& row = table.rows[i];
      const auto* inst = aegis::blas2::find_blas2_instance(row.config);
      ASSERT_NE(inst, nullptr) << table_name << ": " << row.config << " is not built";
      EXPECT_EQ(std::string(inst->name).rfind(std::string(row.routine) + "_nb", 0), 0u)
          << row.config << " does not serve " << row.routine;
      EXPECT_GE(row.y_split, 0);
    }
    for (Precision p : {Precision::S, Precision::D, Precision::C, Precision::Z})
      for (Family f : {Family::GemvN, Family::GemvT, Family::Symv, Family::Hemv}) {
        if (f == Family::Hemv && (p == Precision::S || p == Precision::D)) continue;
        const char* key = aegis::dispatch::blas2_routine_key(p, f);
        for (int64_t size : {1, 1000, 100000})
          for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS})
            EXPECT_NE(aegis::dispatch::blas2_row(table, key, size, mode), nullptr)
                << table_name << " " << key << " " << size << " mode " << mode;
      }
  }
}

TEST(Blas2Tables, ARowOfOneReductionModeServesOnlyThatMode) {
  using aegis::dispatch::Blas2RowModes;
  using aegis::dispatch::blas2_row;
  const aegis::dispatch::Blas2TuningRow rows[] = {
      {"sgemv_t", 4096, "sgemv_t_nb32_q4", 2, Blas2RowModes::DeterministicOnly},
      {"sgemv_t", 4096, "sgemv_t_nb64_q8", 8, Blas2RowModes::AtomicsOnly},
      {"sgemv_t", 0, "sgemv_t_nb16_q4", 4},
  };
  const aegis::dispatch::Blas2Table table{"test", rows, 3};
  const aegisReductionMode_t det = AEGIS_REDUCTION_DETERMINISTIC, atom = AEGIS_REDUCTION_ATOMICS;
  EXPECT_EQ(blas2_row(table, "sgemv_t", 4096, det), &rows[0]);
  EXPECT_EQ(blas2_row(table, "sgemv_t", 4096, atom), &rows[1]);
  EXPECT_EQ(blas2_row(table, "sgemv_t", 4097, det), &rows[2]);
  EXPECT_EQ(blas2_row(table, "sgemv_t", 4097, atom), &rows[2]);
  EXPECT_EQ(blas2_row(table, "sgemv_n", 1, det), nullptr);
}

class Blas2Dispatch : public DevicelessHandle {};

TEST_F(Blas2Dispatch, SplitFillsTheGpuAndRespectsLimits) {
  using namespace aegis::blas2;
  h_->blas2_counter_count = aegis::detail::kBlas2CounterCount;  // as a handle on a device
  Blas2Call call;
  call.family = Family::GemvN;
  call.m = 1024;
  call.n = 1024;
  call.lda = 1024;
  auto c = aegis::dispatch::choose_blas2(*h_, Precision::S, call);
  ASSERT_NE(c.instance, nullptr);
  EXPECT_GT(c.y_split, 1) << "a 1024 x 1024 GEMV N has few row panels: columns are split";
  call.m = 1 << 22;  // many panels: no split
  call.n = 16;
  c = aegis::dispatch::choose_blas2(*h_, Precision::S, call);
  EXPECT_EQ(c.y_split, 1);
  call.family = Family::GemvT;
  call.m = 1 << 20;
  call.n = 8;
  c = aegis::dispatch::choose_blas2(*h_, Precision::D, call);
  EXPECT_GT(c.y_split, 1) << "few columns: rows are split";
  call.family = Family::Symv;
  call.m = call.n = 8192;
  c = aegis::dispatch::choose_blas2(*h_, Precision::S, call);
  EXPECT_GE(c.y_split, 1);
  EXPECT_LE(c.y_split, c.instance->split_units(call));
}

TEST_F(Blas2Dispatch, OrderedReductionNeedsCounters) {
  using namespace aegis::blas2;
  Blas2Call call;
  call.family = Family::GemvN;
  call.m = call.n = call.lda = 1024;
  h_->blas2_counter_count = 0;  // more panels than counters: the deterministic mode cannot split
  EXPECT_EQ(aegis::dispatch::choose_blas2(*h_, Precision::S, call).y_split, 1);
  ASSERT_EQ(aegisSetReductionMode(h_, AEGIS_REDUCTION_ATOMICS), AEGIS_STATUS_SUCCESS);
  EXPECT_GT(aegis::dispatch::choose_blas2(*h_, Precision::S, call).y_split, 1);
}

TEST_F(Blas2Dispatch, ClusterSplitsNeedNoCounters) {
  // On sm_90 a GEMV split of up to kClusterSplitMax blocks can meet in a thread-block
  // cluster, in either reduction mode, and needs no arrival counter; in the deterministic mode
  // a larger split, an older GPU or the workspace still do.
  using namespace aegis::blas2;
  Blas2Call call;
  call.family = Family::GemvN;
  call.m = call.n = call.lda = 1024;
  h_->blas2_counter_count = 0;
  h_->cc_major = 9;
  auto choose = [&](int y) {
    EXPECT_EQ(aegisSetBlas2Override(h_, "sgemv_n_nb256_q4", y), AEGIS_STATUS_SUCCESS);
    return aegis::dispatch::choose_blas2(*h_, Precision::S, call);
  };
  ASSERT_EQ(aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_CLUSTER), AEGIS_STATUS_SUCCESS);
  auto c = choose(kClusterSplitMax);
  EXPECT_EQ(c.y_split, kClusterSplitMax);
  EXPECT_TRUE(c.cluster_sum);
  c = choose(kClusterSplitMax + 1);
  EXPECT_EQ(c.y_split, 1);
  EXPECT_FALSE(c.cluster_sum);
  ASSERT_EQ(aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_WORKSPACE), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(choose(4).y_split, 1);
  ASSERT_EQ(aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_CLUSTER), AEGIS_STATUS_SUCCESS);
  h_->cc_major = 8;  // no clusters before Hopper
  c = choose(4);
  EXPECT_EQ(c.y_split, 1);
  EXPECT_FALSE(c.cluster_sum);
  ASSERT_EQ(aegisSetReductionMode(h_, AEGIS_REDUCTION_ATOMICS), AEGIS_STATUS_SUCCESS);
  h_->cc_major = 9;
  c = choose(4);  // the atomics mode meets in the cluster where asked
  EXPECT_EQ(c.y_split, 4);
  EXPECT_TRUE(c.cluster_sum);
  c = choose(kClusterSplitMax + 1);  // too large for a cluster: atomic adds, no counters
  EXPECT_EQ(c.y_split, kClusterSplitMax + 1);
  EXPECT_FALSE(c.cluster_sum);
  ASSERT_EQ(aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_WORKSPACE), AEGIS_STATUS_SUCCESS);
  c = choose(4);  // the atomics mode's other way: atomic adds
  EXPECT_EQ(c.y_split, 4);
  EXPECT_FALSE(c.cluster_sum);
  h_->cc_major = 8;
  ASSERT_EQ(aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_CLUSTER), AEGIS_STATUS_SUCCESS);
  c = choose(4);  // no clusters before Hopper: atomic adds
  EXPECT_EQ(c.y_split, 4);
  EXPECT_FALSE(c.cluster_sum);
  h_->cc_major = 9;
  ASSERT_EQ(aegisSetReductionMode(h_, AEGIS_REDUCTION_DETERMINISTIC), AEGIS_STATUS_SUCCESS);
  aegisSetBlas2SumsOverride(h_, AEGIS_BLAS2_SUMS_AUTO);
  aegisSetBlas2Override(h_, nullptr, 0);
}

TEST_F(Blas2Dispatch, ChoiceFollowsTheH200TableRows) {
  // Dispatch looks the rows up through a per-routine index built once; every routine, size
  // band edge and mode must still get the configuration, split and sums of the first row of
  // the table that serves it (blas2_row).
  using namespace aegis::blas2;
  using aegis::dispatch::blas2_row;
  ASSERT_EQ(aegisSetTuningTable(h_, "h200"), AEGIS_STATUS_SUCCESS) << last_error();
  h_->cc_major = 9;
  h_->blas2_counter_count = aegis::detail::kBlas2CounterCount;
  const auto& table = aegis::dispatch::blas2_table("h200");
  int checked = 0;
  for (aegisReductionMode_t mode : {AEGIS_REDUCTION_DETERMINISTIC, AEGIS_REDUCTION_ATOMICS}) {
    ASSERT_EQ(aegisSetReductionMode(h_, mode), AEGIS_STATUS_SUCCESS);
    for (int k = 0; k < table.row_count; ++k)
      for (int64_t size : {table.rows[k].max_size, table.rows[k].max_size + 1}) {
        if (size <= 0) size = 40000;
        for (int p = 0; p < 4; ++p)
          for (Family f : {Family::GemvN, Family::GemvT, Family::Symv, Family::Hemv}) {
            const char* key = aegis::dispatch::blas2_routine_key(Precision(p), f);
            const auto* row = blas2_row(table, key, size, mode);
            if (!row || std::strcmp(key, table.rows[k].routine) != 0) continue;
            Blas2Call call;
            call.family = f;
            call.m = call.n = call.lda = size;
            const auto c = aegis::dispatch::choose_blas2(*h_, Precision(p), call);
            ASSERT_NE(c.instance, nullptr) << key << " " << size;
            EXPECT_STREQ(c.instance->name, row->config) << key << " " << size;
            if (row->y_split > 0) {  // clamped to the work units of small sizes
              EXPECT_LE(c.y_split, row->y_split) << key << " " << size;
            }
            if (row->y_split > 0 && size >= 4096 && f != Family::Symv && f != Family::Hemv) {
              EXPECT_EQ(c.y_split, row->y_split) << key << " " << size;
            }
            EXPECT_EQ(c.cluster_sum, c.y_split >= 2 && c.y_split <= kClusterSplitMax &&
                                         row->sums == aegis::dispatch::Blas2Sums::Cluster)
                << key << " " << size;
            ++checked;
          }
      }
  }
  EXPECT_GT(checked, 500);
}

TEST_F(Blas2Dispatch, SumsOverrideArguments) {
  EXPECT_EQ(aegisSetBlas2SumsOverride(nullptr, AEGIS_BLAS2_SUMS_CLUSTER), AEGIS_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(aegisSetBlas2SumsOverride(h_, static_cast<aegisBlas2Sums_t>(3)), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_NE(std::strstr(aegisGetLastErrorString(h_), "parameter 2"), nullptr) << aegisGetLastErrorString(h_);
  EXPECT_EQ(aegisGetLastBlas2Sums(h_, nullptr), AEGIS_STATUS_INVALID_VALUE);
  aegisBlas2Sums_t sums = AEGIS_BLAS2_SUMS_CLUSTER;
  ASSERT_EQ(aegisGetLastBlas2Sums(h_, &sums), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(sums, AEGIS_BLAS2_SUMS_AUTO) << "no level-2 call yet";
}

TEST_F(Blas2Dispatch, OverrideTakesEverySymvHemvConfigurationOfItsRoutine) {
  // Every SYMV/HEMV instance, the staged ones ("..._q8_s3") included, serves its routine key
  // when forced, and no other routine's.
  using namespace aegis::blas2;
  Blas2Call call;
  call.m = call.n = call.lda = 4096;
  int staged = 0;
  for (int i = 0; i < aegisBlas2ConfigCount(); ++i) {
    const std::string name = aegisBlas2ConfigName(i);
    const Blas2Instance* inst = find_blas2_instance(name.c_str());
    ASSERT_NE(inst, nullptr);
    if (inst->family != Family::Symv && inst->family != Family::Hemv) continue;
    staged += name.size() > 3 && name.compare(name.size() - 3, 3, "_s3") == 0;
    ASSERT_EQ(aegisSetBlas2Override(h_, name.c_str(), 2), AEGIS_STATUS_SUCCESS);
    call.family = inst->family;
    auto c = aegis::dispatch::choose_blas2(*h_, inst->precision, call);
    EXPECT_EQ(c.instance, inst) << name;
    EXPECT_EQ(c.y_split, 2) << name;
    const Family other = inst->family == Family::Symv ? Family::GemvN : Family::GemvT;
    call.family = other;
    c = aegis::dispatch::choose_blas2(*h_, inst->precision, call);
    ASSERT_NE(c.instance, nullptr);
    EXPECT_NE(c.instance, inst) << name << " must not serve another routine";
  }
  EXPECT_GT(staged, 0) << "no staged SYMV/HEMV instance in this build";
  EXPECT_EQ(aegisSetBlas2Override(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
}

TEST_F(Blas2Dispatch, OverrideAndLastChoice) {
  EXPECT_EQ(aegisSetBlas2Override(h_, "nonsense", 0), AEGIS_STATUS_INVALID_VALUE);
  EXPECT_EQ(last_error(),
            "aegisSetBlas2Override: parameter 2 (config = \"nonsense\") is not a level-2 "
            "configuration of this build");
  const char* name = aegisBlas2ConfigName(0);
  EXPECT_EQ(aegisSetBlas2Override(h_, name, -1), AEGIS_STATUS_INVALID_VALUE);
  ASSERT_EQ(aegisSetBlas2Override(h_, name, 3), AEGIS_STATUS_SUCCESS);
  EXPECT_EQ(aegisSetBlas2Override(h_, nullptr, 0), AEGIS_STATUS_SUCCESS);
  const char* config = "x";
  int y = -1;
  ASSERT_EQ(aegisGetLastBlas2Choice(h_, &config, &y), AEGIS_STATUS_SUCCESS);
  EXPECT_STREQ(config, "");
  EXPECT_EQ(y, 0);
}

}  // namespace
}  // namespace aegis_test
