// Tagged partial sums (blas2_common.cuh, gemv_kernel.cuh, common/scratch.h), driven directly:
// the handle's buffer and its tags, and the GEMV reduction kernel waiting for parts that are
// stored after it has started. The public API reaches neither the tags' wrap (after 2^32 - 1
// calls) nor a writer that is slower than the reduction on demand.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include <cuComplex.h>
#include <cuda_runtime_api.h>

#include "aegis/aegis.h"
#include "blas2/gemv_kernel.cuh"
#include "common/context.h"
#include "common/scratch.h"
#include "sm90_test.h"

namespace {

using aegis::blas2::GemvTaggedReduceParams;
using aegis::blas2::kTaggedReduceElements;
using aegis::blas2::kTaggedReduceThreads;
using aegis::blas2::kTaggedWords;

#define CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

class TaggedParts : public aegis_internal_test::Sm90Test {
 protected:
  void SetUp() override {
    Sm90Test::SetUp();
    if (IsSkipped()) return;
    ASSERT_EQ(aegisCreate(&h_), AEGIS_STATUS_SUCCESS);
  }
  void TearDown() override {
    if (h_) aegisDestroy(h_);
  }
  std::vector<uint64_t> words(const void* buffer, size_t bytes) {
    std::vector<uint64_t> w(bytes / sizeof(uint64_t));
    EXPECT_EQ(cudaStreamSynchronize(h_->stream), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(w.data(), buffer, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    return w;
  }
  aegisHandle_t h_ = nullptr;
};

bool all_zero(const std::vector<uint64_t>& w) {
  for (uint64_t v : w)
    if (v != 0) return false;
  return true;
}

TEST_F(TaggedParts, EveryCallANewTagAndZeroedBuffers) {
  constexpr size_t kBytes = 4096;
  unsigned tag = 0;
  void* first = aegis::detail::tagged_parts(h_, kBytes, &tag);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(tag, 1u) << "tags start at 1 (0 is the zeroed buffer's)";
  EXPECT_TRUE(all_zero(words(first, kBytes))) << "a new buffer is zeroed";

  // The next call keeps the buffer and its words (the stale words carry older tags).
  CUDA_OK(cudaMemset(first, 0x5a, kBytes));
  void* again = aegis::detail::tagged_parts(h_, kBytes / 2, &tag);
  EXPECT_EQ(again, first);
  EXPECT_EQ(tag, 2u);
  EXPECT_EQ(words(again, 8)[0], 0x5a5a5a5a5a5a5a5aull) << "a buffer in use is not zeroed again";

  // Before the tags wrap, the buffer is zeroed and the tags start again at 1.
  h_->blas2_part_tag = ~0u;
  void* wrapped = aegis::detail::tagged_parts(h_, kBytes, &tag);
  EXPECT_EQ(wrapped, first);
  EXPECT_EQ(tag, 1u);
  EXPECT_TRUE(all_zero(words(wrapped, kBytes))) << "zeroed when the tags wrap";

  // A larger request takes a new, zeroed buffer.
  CUDA_OK(cudaMemset(wrapped, 0x5a, kBytes));
  void* grown = aegis::detail::tagged_parts(h_, 4 * kBytes, &tag);
  ASSERT_NE(grown, nullptr);
  EXPECT_EQ(h_->blas2_tagged_parts_bytes, 4 * kBytes);
  EXPECT_TRUE(all_zero(words(grown, 4 * kBytes))) << "a grown buffer is zeroed";
}

// ---- the GEMV reduction kernel against a late writer ----------------------------------------

template <typename T>
T value_from(double re, double im) {
  if constexpr (std::is_same_v<T, float>) return float(re);
  else if constexpr (std::is_same_v<T, double>) return re;
  else if constexpr (std::is_same_v<T, cuComplex>) return make_cuComplex(float(re), float(im));
  else return make_cuDoubleComplex(re, im);
}

// Host sums in the kernels' order (in order from zero, in T's arithmetic).
template <typename T>
T host_add(T a, T b) {
  if constexpr (std::is_same_v<T, cuComplex>) return make_cuComplex(a.x + b.x, a.y + b.y);
  else if constexpr (std::is_same_v<T, cuDoubleComplex>) return make_cuDoubleComplex(a.x + b.x, a.y + b.y);
  else return a + b;
}

template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Stores values[s][i] as split s's part of element i with `tag`, the last split first, each
// thread after a pause, so that the reduction kernel (started before on another stream)
// finds most parts missing or stale and must wait for them.
template <typename T>
__global__ void store_parts_late(uint64_t* words, const T* values, int64_t count, int split,
                                 unsigned tag) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= count * split) return;
  __nanosleep(200000);
  const int64_t s = split - 1 - idx / count, i = idx % count;
  aegis::blas2::store_tagged(words + (s * count + i) * kTaggedWords<T>, values[s * count + i], tag);
}

template <typename T>
class TaggedReduce : public aegis_internal_test::Sm90Test {};
using TaggedTypes = ::testing::Types<float, double, cuComplex, cuDoubleComplex>;
TYPED_TEST_SUITE(TaggedReduce, TaggedTypes);

// Splits of one partial batch, one full pass and more than one pass (64 parts a pass); the
// buffer holds the right values under the previous tag first, so a reduction that took a word
// without its call's tag would add the wrong value.
TYPED_TEST(TaggedReduce, WaitsForPartsStoredAfterItStarted) {
  using T = TypeParam;
  constexpr int64_t kCount = 1000;  // not a multiple of the elements per block
  constexpr unsigned kTag = 7;
  std::mt19937_64 g(0x7a66edull);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int split : {3, 64, 70}) {
    const size_t parts = size_t(split) * kCount;
    std::vector<T> fresh(parts), stale(parts);
    for (size_t k = 0; k < parts; ++k) {
      fresh[k] = value_from<T>(u(g), u(g));
      stale[k] = value_from<T>(u(g), u(g));
    }
    std::vector<T> expected(kCount);
    for (int64_t i = 0; i < kCount; ++i) {
      T s = value_from<T>(0, 0);
      for (int k = 0; k < split; ++k) s = host_add(s, fresh[size_t(k) * kCount + i]);
      expected[i] = s;
    }

    T *d_fresh = nullptr, *d_stale = nullptr, *d_y = nullptr;
    uint64_t* d_words = nullptr;
    const size_t word_bytes = parts * kTaggedWords<T> * sizeof(uint64_t);
    CUDA_OK(cudaMalloc(&d_fresh, parts * sizeof(T)));
    CUDA_OK(cudaMalloc(&d_stale, parts * sizeof(T)));
    CUDA_OK(cudaMalloc(&d_y, kCount * sizeof(T)));
    CUDA_OK(cudaMalloc(&d_words, word_bytes));
    CUDA_OK(cudaMemcpy(d_fresh, fresh.data(), parts * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_stale, stale.data(), parts * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_y, 0xff, kCount * sizeof(T)));  // NaN: beta = 0 must not read it
    const unsigned blocks = unsigned((parts + 255) / 256);
    store_parts_late<T><<<blocks, 256>>>(d_words, d_stale, kCount, split, kTag - 1);
    CUDA_OK(cudaDeviceSynchronize());

    cudaStream_t reducer = nullptr, writer = nullptr;
    CUDA_OK(cudaStreamCreateWithFlags(&reducer, cudaStreamNonBlocking));
    CUDA_OK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
    GemvTaggedReduceParams<T> p;
    p.words = d_words;
    p.count = kCount;
    p.split = split;
    p.tag = kTag;
    p.y = d_y;
    p.incy = 1;
    p.scalars.alpha = value_from<T>(1, 0);
    p.scalars.beta = value_from<T>(0, 0);
    p.scalars.alpha_device = nullptr;
    p.scalars.beta_device = nullptr;
    aegis::blas2::gemv_tagged_reduce_kernel<T>
        <<<unsigned((kCount + kTaggedReduceElements - 1) / kTaggedReduceElements),
           kTaggedReduceThreads, 0, reducer>>>(p);
    store_parts_late<T><<<blocks, 256, 0, writer>>>(d_words, d_fresh, kCount, split, kTag);
    CUDA_OK(cudaStreamSynchronize(writer));
    CUDA_OK(cudaStreamSynchronize(reducer));

    std::vector<T> y(kCount);
    CUDA_OK(cudaMemcpy(y.data(), d_y, kCount * sizeof(T), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int64_t i = 0; i < kCount; ++i) wrong += same_bits(y[i], expected[i]) ? 0 : 1;
    EXPECT_EQ(wrong, 0) << "split " << split << ": elements whose sum is not the ordered sum of the tagged parts";

    cudaStreamDestroy(reducer);
    cudaStreamDestroy(writer);
    cudaFree(d_fresh);
    cudaFree(d_stale);
    cudaFree(d_y);
    cudaFree(d_words);
  }
}

}  // namespace
