// Tensors in kernels: tile a global matrix per block, partition the tile among threads, move it
// through registers and a swizzled shared-memory buffer, and check every element on the host.

#include <cstdint>
#include <vector>

#include "gpu_test_util.hpp"
#include "tessel/layout.hpp"

using namespace tessel;

namespace {

constexpr int kM = 128, kN = 96, kTile = 32;

// An iterator whose elements are their own offsets: a tensor over it yields linear coordinates.
struct Counting {
  int base;
  __host__ __device__ int operator[](long long i) const { return base + int(i); }
  __host__ __device__ Counting operator+(long long i) const { return {base + int(i)}; }
};

// out = 2 * in^T per tile: global -> registers (local_partition) -> swizzled smem -> transposed read.
template <class Threads>
__global__ void tile_roundtrip(float const* in, float* out, Threads threads) {
  auto gIn = make_tensor(make_gmem_ptr(in), make_layout(make_shape(kM, kN), LayoutRight{}));    // (M,N)
  auto gOut = make_tensor(make_gmem_ptr(out), make_layout(make_shape(kM, kN), LayoutRight{}));  // (M,N)
  auto tile_shape = make_shape(Int<kTile>{}, Int<kTile>{});
  auto cta_in = local_tile(gIn, tile_shape, make_coord(blockIdx.x, blockIdx.y));    // (32,32)
  auto cta_out = local_tile(gOut, tile_shape, make_coord(blockIdx.x, blockIdx.y));  // (32,32)

  __shared__ float buf[kTile * kTile];
  auto sLayout = composition(Swizzle<3, 2, 3>{}, make_layout(tile_shape, LayoutRight{}));
  auto sTile = make_tensor(make_smem_ptr(buf), sLayout);  // (32,32), swizzled

  auto my_in = local_partition(cta_in, threads, threadIdx.x);  // (4,8) per thread
  auto my_smem = local_partition(sTile, threads, threadIdx.x);
  auto frag = make_fragment_like<float>(my_in);  // registers
  for (int i = 0; i < size(frag); ++i) frag[i] = 2.f * my_in[i];
  for (int i = 0; i < size(frag); ++i) my_smem[i] = frag[i];
  __syncthreads();
  // Read back transposed: element (r,c) of the output tile comes from (c,r) of the buffer.
  auto my_out = local_partition(cta_out, threads, threadIdx.x);
  auto coords = local_partition(make_tensor(Counting{0}, make_layout(tile_shape)), threads, threadIdx.x);
  for (int i = 0; i < size(my_out); ++i) {
    int lin = coords[i];  // column-major linear coordinate in the tile
    int r = lin % kTile, c = lin / kTile;
    my_out[i] = sTile(c, r);
  }
}

}  // namespace

TEST(TensorGpu, TileThroughRegistersAndSwizzledSharedMemory) {
  TESSEL_SKIP_WITHOUT_GPU();
  std::vector<float> in(kM * kN), out(kM * kN);
  uint32_t s = 7;
  for (auto& v : in) { s = s * 1664525u + 1013904223u; v = float(s >> 9) * 0.5f; }
  float *d_in = nullptr, *d_out = nullptr;
  TESSEL_CUDA_CHECK(cudaMalloc(&d_in, in.size() * sizeof(float)));
  TESSEL_CUDA_CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
  TESSEL_CUDA_CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  TESSEL_CUDA_CHECK(cudaMemset(d_out, 0xff, out.size() * sizeof(float)));  // poison: NaN
  auto threads = make_layout(make_shape(_8{}, _4{}), LayoutRight{});       // 32 threads, (8,4)
  tile_roundtrip<<<dim3(kM / kTile, kN / kTile), 32>>>(d_in, d_out, threads);
  TESSEL_CUDA_CHECK(cudaGetLastError());
  TESSEL_CUDA_CHECK(cudaDeviceSynchronize());
  TESSEL_CUDA_CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_out);
  int bad = 0;
  for (int m = 0; m < kM; ++m)
    for (int n = 0; n < kN; ++n) {
      int tm = m / kTile, tn = n / kTile, r = m % kTile, c = n % kTile;
      float want = 2.f * in[(tm * kTile + c) * kN + tn * kTile + r];  // transposed inside the tile
      float got = out[m * kN + n];
      if (!(got == want) && bad++ < 5) ADD_FAILURE() << "out(" << m << "," << n << ") = " << got << ", want " << want;
    }
  EXPECT_EQ(bad, 0);
}
