// cute_layouts: the seed lesson's layout program, rebuilt on tessel.
//
// Four gates, each able to fail:
//   composition gate     the twelve indices CuTe's layout-algebra document publishes for
//                        (6,2):(8,2) o (4,3):(3,1);
//   tiled index gate     zipped_divide((256,128):(128,1), (16,16)) against the hand formula
//                        tileRow*2048 + rowInTile*128 + tileCol*16 + colInTile at all 32768 elements;
//   divide identity gate the tile mode of the divide is the matrix itself inside tile (0,0);
//   device gather gate   a kernel gathers the matrix through the same (empty, static) layout object.
// Exit status: 0 when every gate that ran passed, 1 otherwise.

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tessel/layout.hpp"

using namespace tessel;

namespace {

constexpr int kM = 256, kK = 128, kTileDim = 16;

// Day 16's address of element (rowInTile, colInTile) of tile (tileRow, tileCol), by hand.
int hand_index(int tile_row, int tile_col, int row_in_tile, int col_in_tile) {
  int row = tile_row * kTileDim + row_in_tile;
  int col = tile_col * kTileDim + col_in_tile;
  return row * kK + col;
}

bool gate(char const* name, long long passed, long long total) {
  std::printf("%s gate: %lld/%lld\n", name, passed, total);
  return passed == total;
}

template <class ZD>
__global__ void gather(float const* in, float* out, ZD zd) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < size(zd)) out[i] = in[zd(i)];
}

bool check(cudaError_t e, char const* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "cute_layouts: %s failed: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

}  // namespace

int main() {
  auto mA = make_layout(make_shape(Int<kM>{}, Int<kK>{}), make_stride(Int<kK>{}, _1{}));  // (M,K) row-major
  auto tiler = make_shape(Int<kTileDim>{}, Int<kTileDim>{});
  auto zd = zipped_divide(mA, tiler);  // ((16,16),(16,8))
  static_assert(std::is_empty_v<decltype(zd)>, "a static layout must cost nothing to pass to a kernel");
  std::printf("zd = %s\n", to_string(zd).c_str());

  bool ok = true;

  // Composition: the document's answer key.
  auto docA = make_layout(make_shape(_6{}, _2{}), make_stride(_8{}, _2{}));
  auto docB = make_layout(make_shape(_4{}, _3{}), make_stride(_3{}, _1{}));
  auto docR = composition(docA, docB);
  const int published[12] = {0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
  int comp_pass = 0;
  for (int i = 0; i < 12; ++i) comp_pass += (docR(i) == published[i]);
  ok &= gate("composition", comp_pass, 12);

  // Tiled index: the divide against the hand formula, everywhere.
  int tiled_pass = 0;
  for (int tr = 0; tr < kM / kTileDim; ++tr)
    for (int tc = 0; tc < kK / kTileDim; ++tc)
      for (int r = 0; r < kTileDim; ++r)
        for (int c = 0; c < kTileDim; ++c)
          tiled_pass += (zd(make_coord(make_coord(r, c), make_coord(tr, tc))) == hand_index(tr, tc, r, c));
  ok &= gate("tiled index", tiled_pass, kM * kK);

  // Divide identity: inside tile (0,0) the divide is the matrix's own layout.
  auto tile0 = layout<0>(zd);
  int ident_pass = 0;
  for (int i = 0; i < kTileDim * kTileDim; ++i) ident_pass += (tile0(i) == mA(i % kTileDim, i / kTileDim));
  ok &= gate("divide identity", ident_pass, kTileDim * kTileDim);

  // Device gather through the same layout object.
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    std::printf("device gather gate: skipped (no CUDA device)\n");
    return ok ? 0 : 1;
  }
  const int n = kM * kK;
  std::vector<float> in(n), out(n, -1.f);
  unsigned state = 12345u;
  for (auto& v : in) { state = state * 1664525u + 1013904223u; v = float(state >> 8); }
  float *d_in = nullptr, *d_out = nullptr;
  bool dev_ok = check(cudaMalloc(&d_in, n * sizeof(float)), "cudaMalloc") &&
                check(cudaMalloc(&d_out, n * sizeof(float)), "cudaMalloc") &&
                check(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy in") &&
                check(cudaMemset(d_out, 0xff, n * sizeof(float)), "poison out");  // NaN everywhere
  if (dev_ok) {
    gather<<<(n + 255) / 256, 256>>>(d_in, d_out, zd);
    dev_ok = check(cudaGetLastError(), "gather launch") && check(cudaDeviceSynchronize(), "gather") &&
             check(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost), "copy out");
  }
  int gather_pass = 0;
  if (dev_ok) {
    // Coordinate i of zd is ((r,c),(tr,tc)) in colexicographic order.
    for (int i = 0; i < n; ++i) {
      int r = i % 16, c = (i / 16) % 16, tr = (i / 256) % 16, tc = i / 4096;
      gather_pass += (out[i] == in[hand_index(tr, tc, r, c)]);
    }
  }
  cudaFree(d_in);
  cudaFree(d_out);
  ok &= gate("device gather", gather_pass, n);
  return ok ? 0 : 1;
}
