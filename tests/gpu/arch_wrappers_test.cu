// Each instruction wrapper run by one warp on known data, checked bit for bit against the host
// model of the PTX ISA's fragment layouts (tessel/verify/mma_fragments.hpp). Outputs are
// poisoned first, so a lane that writes nothing fails too. Skipped without a suitable GPU.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "gpu_skip.hpp"
#include "tessel/arch/cp_async_sm80.hpp"
#include "tessel/arch/ldmatrix_sm75.hpp"
#include "tessel/arch/mma_sm75.hpp"
#include "tessel/arch/mma_sm80.hpp"
#include "tessel/arch/runtime.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/device_buffer.cuh"
#include "tessel/verify/mma_fragments.hpp"
#include "tessel/verify/poison.hpp"
#include "tessel/verify/random.hpp"

namespace {

using namespace tessel;
using namespace tessel::verify;

template <class T>
std::uint16_t bits16(T x) {
  static_assert(sizeof(T) == 2);
  std::uint16_t b;
  std::memcpy(&b, &x, 2);
  return b;
}

std::uint32_t float_bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- mma.sync ----------------------------------------------------------------------------

template <class Mma>
__global__ void mma_kernel(const std::uint32_t* a, const std::uint32_t* b, const float* c,
                           float* d) {
  if constexpr (arch::device_pass_supports<typename Mma::Arch>()) {
    const unsigned lane = threadIdx.x;
    std::uint32_t fa[Mma::kARegisters], fb[Mma::kBRegisters];
    float fc[4], fd[4];
    for (int r = 0; r < Mma::kARegisters; ++r) fa[r] = a[r * 32 + lane];
    for (int r = 0; r < Mma::kBRegisters; ++r) fb[r] = b[r * 32 + lane];
    for (int r = 0; r < 4; ++r) fc[r] = c[r * 32 + lane];
    Mma::fma(fd, fa, fb, fc);
    for (int r = 0; r < 4; ++r) d[r * 32 + lane] = fd[r];
  }
}

// The instruction, its 16-bit input type and the host model of its fragments.
struct M16N8K8F16 {
  using Mma = arch::Mma16x8x8F32F16F16F32;
  using Element = half_t;
  static FragmentCoord a(int l, int i) { return mma_m16n8k8_a(l, i); }
  static FragmentCoord b(int l, int i) { return mma_m16n8k8_b(l, i); }
  static FragmentCoord c(int l, int i) { return mma_m16n8k8_c(l, i); }
};
struct M16N8K16F16 {
  using Mma = arch::Mma16x8x16F32F16F16F32;
  using Element = half_t;
  static FragmentCoord a(int l, int i) { return mma_m16n8k16_a(l, i); }
  static FragmentCoord b(int l, int i) { return mma_m16n8k16_b(l, i); }
  static FragmentCoord c(int l, int i) { return mma_m16n8k16_c(l, i); }
};
struct M16N8K16BF16 : M16N8K16F16 {
  using Mma = arch::Mma16x8x16F32BF16BF16F32;
  using Element = bfloat16_t;
};

template <class Case>
void run_mma_case(std::uint64_t seed) {
  using Mma = typename Case::Mma;
  using E = typename Case::Element;
  constexpr int M = Mma::kM, N = Mma::kN, K = Mma::kK;
  // Small integers: every product and sum is exact in f32, so the result is known bit for bit
  // whatever order the tensor core adds in; a misplaced element changes it.
  std::vector<double> A(M * K), B(K * N), C(M * N);
  fill_random(A.data(), A.size(), seed, Distribution::integers(-8, 8));
  fill_random(B.data(), B.size(), seed + 1, Distribution::integers(-8, 8));
  fill_random(C.data(), C.size(), seed + 2, Distribution::integers(-64, 64));

  // Registers per lane, packed from the model: element i in register i/2, low half when even.
  std::vector<std::uint32_t> ra(Mma::kARegisters * 32, 0), rb(Mma::kBRegisters * 32, 0);
  std::vector<float> rc(4 * 32);
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 2 * Mma::kARegisters; ++i) {
      const FragmentCoord x = Case::a(lane, i);
      const std::uint32_t h = bits16(from_double<E>(A[x.row * K + x.col]));
      ra[(i / 2) * 32 + lane] |= h << (16 * (i % 2));
    }
    for (int i = 0; i < 2 * Mma::kBRegisters; ++i) {
      const FragmentCoord x = Case::b(lane, i);
      const std::uint32_t h = bits16(from_double<E>(B[x.row * N + x.col]));
      rb[(i / 2) * 32 + lane] |= h << (16 * (i % 2));
    }
    for (int i = 0; i < 4; ++i) {
      const FragmentCoord x = Case::c(lane, i);
      rc[i * 32 + lane] = static_cast<float>(C[x.row * N + x.col]);
    }
  }

  const auto kernel = mma_kernel<Mma>;
  const StatusInfo gate = arch::check_kernel_arch<typename Mma::Arch>(reinterpret_cast<const void*>(kernel));
  ASSERT_TRUE(gate.ok()) << gate.what();

  DeviceBuffer<std::uint32_t> da(ra), db(rb);
  DeviceBuffer<float> dc(rc);
  std::vector<float> poisoned(4 * 32);
  poison(poisoned.data(), poisoned.size());
  DeviceBuffer<float> dd(poisoned);
  kernel<<<1, 32>>>(da.data(), db.data(), dc.data(), dd.data());
  check_cuda(cudaGetLastError(), "mma_kernel launch");
  check_cuda(cudaDeviceSynchronize(), "mma_kernel");
  const std::vector<float> got = dd.download();

  int mismatches = 0;
  std::ostringstream first;
  for (int lane = 0; lane < 32; ++lane) {
    for (int i = 0; i < 4; ++i) {
      const FragmentCoord x = Case::c(lane, i);
      double want = C[x.row * N + x.col];
      for (int k = 0; k < K; ++k) want += A[x.row * K + k] * B[k * N + x.col];
      const float g = got[i * 32 + lane];
      if (float_bits(g) != float_bits(static_cast<float>(want))) {
        if (++mismatches <= 8) {
          first << "\n  lane " << lane << " d" << i << " = D(" << x.row << ", " << x.col
                << "): got " << g << (is_poison(g) ? " (never written)" : "") << ", want " << want;
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << mismatches << " of 128 accumulator elements differ; first:"
                           << first.str();
}

TEST(MmaSm75, M16N8K8F16MatchesTheFragmentModel) {
  TESSEL_SKIP_UNLESS_DEVICE_RUNS(arch::Sm75);
  for (std::uint64_t seed : {1u, 2u, 3u}) run_mma_case<M16N8K8F16>(seed);
}

TEST(MmaSm80, M16N8K16F16MatchesTheFragmentModel) {
  TESSEL_SKIP_UNLESS_DEVICE_RUNS(arch::Sm80);
  for (std::uint64_t seed : {4u, 5u, 6u}) run_mma_case<M16N8K16F16>(seed);
}

TEST(MmaSm80, M16N8K16BF16MatchesTheFragmentModel) {
  TESSEL_SKIP_UNLESS_DEVICE_RUNS(arch::Sm80);
  for (std::uint64_t seed : {7u, 8u, 9u}) run_mma_case<M16N8K16BF16>(seed);
}

// ---- ldmatrix ------------------------------------------------------------------------------

// 32 rows of 8 16-bit elements. Row r of matrix m (the row lane 8m + r addresses) is stored at
// shared-memory slot kSlot(8m + r), a permutation, so that the test also shows each lane's
// address is the one used.
__host__ __device__ constexpr int slot_of(int row) { return (row * 13 + 5) % 32; }

template <int N, bool Trans>
__global__ void ldmatrix_kernel(const uint4* rows, std::uint32_t* out) {
  if constexpr (arch::device_pass_supports<arch::Sm75>()) {
    __shared__ uint4 smem[32];
    const unsigned lane = threadIdx.x;
    smem[lane] = rows[lane];
    __syncwarp();
    // Lanes past the 8N that supply addresses repeat the lower lanes' (required on sm_75).
    const int row = static_cast<int>(lane) % (8 * N);
    std::uint32_t d[N];
    arch::ldmatrix<N, Trans>(d, &smem[slot_of(row)]);
    for (int r = 0; r < N; ++r) out[r * 32 + lane] = d[r];
  }
}

std::uint16_t element_id(int matrix, int row, int col) {
  return static_cast<std::uint16_t>(0x5000 ^ (matrix << 8) ^ (row << 4) ^ col);
}

template <int N, bool Trans>
void run_ldmatrix_case() {
  std::vector<std::uint16_t> image(32 * 8);
  for (int m = 0; m < 4; ++m) {
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) image[slot_of(8 * m + r) * 8 + c] = element_id(m, r, c);
    }
  }
  std::vector<uint4> rows(32);
  std::memcpy(rows.data(), image.data(), 32 * 16);
  DeviceBuffer<uint4> drows(rows);
  std::vector<std::uint32_t> poisoned(N * 32);
  poison(poisoned.data(), poisoned.size());
  DeviceBuffer<std::uint32_t> dout(poisoned);
  ldmatrix_kernel<N, Trans><<<1, 32>>>(drows.data(), dout.data());
  check_cuda(cudaGetLastError(), "ldmatrix_kernel launch");
  check_cuda(cudaDeviceSynchronize(), "ldmatrix_kernel");
  const auto got = dout.download();

  int mismatches = 0;
  std::ostringstream first;
  for (int lane = 0; lane < 32; ++lane) {
    for (int r = 0; r < N; ++r) {
      for (int i = 0; i < 2; ++i) {
        const FragmentCoord x = ldmatrix_m8n8(lane, i, Trans);
        const std::uint16_t want = element_id(r, x.row, x.col);
        const auto g = static_cast<std::uint16_t>(got[r * 32 + lane] >> (16 * i));
        if (g != want && ++mismatches <= 8) {
          first << "\n  lane " << lane << " register " << r << " half " << i << ": got 0x"
                << std::hex << g << ", want 0x" << want << std::dec << " (matrix " << r
                << " element (" << x.row << ", " << x.col << "))";
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << "ldmatrix .x" << N << (Trans ? ".trans" : "") << ": " << mismatches
                           << " elements differ; first:" << first.str();
}

TEST(LdmatrixSm75, EveryFormMatchesTheFragmentModel) {
  TESSEL_SKIP_UNLESS_DEVICE_RUNS(arch::Sm75);
  run_ldmatrix_case<1, false>();
  run_ldmatrix_case<2, false>();
  run_ldmatrix_case<4, false>();
  run_ldmatrix_case<1, true>();
  run_ldmatrix_case<2, true>();
  run_ldmatrix_case<4, true>();
}

// ---- cp.async ------------------------------------------------------------------------------

constexpr unsigned char kSentinel = 0xab;

// Regions of shared memory, 32 lanes each:
//   0  cp.async.cg 16 bytes with src_size = lane % 17 (0..16): partial copies, zero-filled
//   1  cp.async.cg 16 bytes, predicated: all or zeros
//   2  cp.async.ca 8 bytes with src_size = lane % 9
//   3  cp.async.ca 4 bytes with src_size = lane % 5
// Region 0 is one commit group, regions 1-3 a second and a third. After wait_group<2> only the
// first group is guaranteed complete; it is copied out then (snapshot), the rest after wait_all.
__host__ __device__ constexpr unsigned cg_bytes(unsigned lane) { return lane % 17; }
__host__ __device__ constexpr bool zfill_valid(unsigned lane) { return lane % 3 != 0; }
__host__ __device__ constexpr unsigned ca8_bytes(unsigned lane) { return lane % 9; }
__host__ __device__ constexpr unsigned ca4_bytes(unsigned lane) { return lane % 5; }

constexpr int kSmemBytes = 32 * 16 * 2 + 32 * 8 + 32 * 4;

__global__ void cp_async_kernel(const unsigned char* src, unsigned char* out,
                                unsigned char* snapshot) {
  if constexpr (arch::device_pass_supports<arch::Sm80>()) {
    __shared__ alignas(16) unsigned char smem[kSmemBytes];
    const unsigned lane = threadIdx.x;
    for (int i = static_cast<int>(lane); i < kSmemBytes; i += 32) smem[i] = kSentinel;
    __syncwarp();
    unsigned char* r0 = smem;
    unsigned char* r1 = smem + 512;
    unsigned char* r2 = smem + 1024;
    unsigned char* r3 = smem + 1024 + 256;
    arch::cp_async_cg_16(r0 + 16 * lane, src + 16 * lane, cg_bytes(lane));
    arch::cp_async_commit_group();
    arch::cp_async_cg_16_zfill(r1 + 16 * lane, src + 512 + 16 * lane, zfill_valid(lane));
    arch::cp_async_commit_group();
    arch::cp_async_ca<8>(r2 + 8 * lane, src + 1024 + 8 * lane, ca8_bytes(lane));
    arch::cp_async_ca<4>(arch::cvta_to_shared(r3 + 4 * lane), src + 1280 + 4 * lane,
                         ca4_bytes(lane));
    arch::cp_async_commit_group();
    arch::cp_async_wait_group<2>();
    __syncwarp();
    for (int i = static_cast<int>(lane); i < 512; i += 32) snapshot[i] = r0[i];
    arch::cp_async_wait_all();
    __syncwarp();
    for (int i = static_cast<int>(lane); i < kSmemBytes; i += 32) out[i] = smem[i];
  }
}

TEST(CpAsyncSm80, ZeroFillPartialCopiesAndGroups) {
  TESSEL_SKIP_UNLESS_DEVICE_RUNS(arch::Sm80);
  std::vector<unsigned char> src(kSmemBytes);
  for (std::size_t i = 0; i < src.size(); ++i) {
    src[i] = static_cast<unsigned char>((i * 7 + 3) % 251 + 1);  // never 0, never the sentinel
    if (src[i] == kSentinel) src[i] = 1;
  }
  // The host model: per lane, the first src_size bytes copied, the rest of the chunk zero.
  std::vector<unsigned char> want(kSmemBytes);
  auto model = [&](int base, int chunk, int lane, unsigned copied) {
    for (int b = 0; b < chunk; ++b) {
      const int at = base + chunk * lane + b;
      want[at] = static_cast<unsigned>(b) < copied ? src[at] : 0;
    }
  };
  for (int lane = 0; lane < 32; ++lane) {
    model(0, 16, lane, cg_bytes(lane));
    model(512, 16, lane, zfill_valid(lane) ? 16 : 0);
    model(1024, 8, lane, ca8_bytes(lane));
    model(1280, 4, lane, ca4_bytes(lane));
  }

  const StatusInfo gate =
      arch::check_kernel_arch<arch::Sm80>(reinterpret_cast<const void*>(cp_async_kernel));
  ASSERT_TRUE(gate.ok()) << gate.what();
  DeviceBuffer<unsigned char> dsrc(src);
  std::vector<unsigned char> poisoned(kSmemBytes, kPoisonByte);
  DeviceBuffer<unsigned char> dout(poisoned), dsnap(std::vector<unsigned char>(512, kPoisonByte));
  cp_async_kernel<<<1, 32>>>(dsrc.data(), dout.data(), dsnap.data());
  check_cuda(cudaGetLastError(), "cp_async_kernel launch");
  check_cuda(cudaDeviceSynchronize(), "cp_async_kernel");
  const auto got = dout.download();
  const auto snap = dsnap.download();

  auto check = [&](const std::vector<unsigned char>& g, int bytes, const char* what) {
    int mismatches = 0;
    std::ostringstream first;
    for (int i = 0; i < bytes; ++i) {
      if (g[i] != want[i] && ++mismatches <= 8) {
        first << "\n  byte " << i << ": got " << int(g[i])
              << (g[i] == kSentinel ? " (never written)" : "") << ", want " << int(want[i]);
      }
    }
    EXPECT_EQ(mismatches, 0) << what << ": " << mismatches << " bytes differ; first:" << first.str();
  };
  check(got, kSmemBytes, "after wait_all");
  check(snap, 512, "first group after wait_group<2>");
}

// ---- The run-time gate on this device --------------------------------------------------------

TEST(ArchRuntime, GateAgreesWithTheDevice) {
  TESSEL_SKIP_WITHOUT_DEVICE();
  arch::DeviceArch dev;
  ASSERT_TRUE(arch::query_device_arch(-1, dev).ok());
  EXPECT_EQ(arch::check_device_arch<arch::Sm75>().ok(), dev.compute_capability >= 75);
  EXPECT_EQ(arch::check_device_arch<arch::Sm80>().ok(), dev.compute_capability >= 80);
  EXPECT_EQ(arch::check_device_arch<arch::Sm90>().ok(), dev.compute_capability == 90);
  EXPECT_EQ(arch::device_can_run<arch::Sm80>(), dev.compute_capability >= 80);
  // This binary holds images for 75, 80 and 90a, so the kernel gate agrees with the device gate.
  const auto k80 = arch::check_kernel_arch<arch::Sm80>(reinterpret_cast<const void*>(cp_async_kernel));
  EXPECT_EQ(k80.ok(), dev.compute_capability >= 80) << k80.what();
  if (!k80.ok()) {
    EXPECT_EQ(k80.status, Status::kErrorArchMismatch);
  }
}

}  // namespace
