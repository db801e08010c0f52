// FP64 reference of the level-2 routines for the GPU suite: our own simple kernel (one
// thread per output element, 64-bit indexing), independent of the library under test.
#pragma once

#include <cuComplex.h>

#include <cstdint>
#include <vector>

namespace aegis_test {

enum class Blas2Kind { GemvN = 0, GemvT = 1, GemvC = 2, Symv = 3, Hemv = 4 };

// y_ref[i] = alpha (op(A) x)_i + beta y0_i and bound[i] = |alpha| (|op(A)| |x|)_i +
// |beta| |y0_i| (complex magnitudes), for i < output length. Vectors are given by their
// element 0 (for a negative inc that is the element of highest address) and inc.
// Symv/Hemv read only the `upper` or lower triangle (Hemv: the diagonal's real part).
// Where beta == 0, y0 is not read; where alpha == 0, neither A nor x.
struct Blas2RefArgs {
  Blas2Kind kind = Blas2Kind::GemvN;
  bool upper = false;
  int64_t m = 0, n = 0;
  const void* A = nullptr;
  int64_t lda = 1;
  const void* x0 = nullptr;
  int64_t incx = 1;
  const void* y0 = nullptr;
  int64_t incy = 1;
  double alpha[2] = {1, 0}, beta[2] = {0, 0};
};

// T is float, double, cuComplex or cuDoubleComplex. ref holds (re, im) pairs.
template <typename T>
void blas2_reference(const Blas2RefArgs& args, std::vector<double>* ref_re_im,
                     std::vector<double>* bound);

}  // namespace aegis_test
