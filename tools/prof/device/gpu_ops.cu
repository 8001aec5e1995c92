#include "device/gpu_ops.hpp"

#include <cmath>
#include <cstring>

#include "device/cuda_check.hpp"
#include "kernels/element_of.hpp"
#include "tessel/numeric.hpp"
#include "tessel/verify/device_compare.cuh"
#include "tessel/verify/device_fill.cuh"
#include "tessel/verify/device_reference.cuh"
#include "tessel/verify/device_spin.cuh"
#include "tessel/verify/tolerance.hpp"

namespace tessel::prof {

namespace {

// Calls f with a value of the C++ type `e` names, among Ts; false when none is.
template <class... Ts, class F>
bool dispatch_among(Element e, F&& f) {
  return ((kernels::element_of<Ts>() == e ? (f(Ts{}), true) : false) || ...);
}

// Every element type: fills, poisoning, comparisons.
template <class F>
void dispatch(Element e, F&& f) {
  dispatch_among<half_t, bfloat16_t, float, float_e4m3_t, float_e5m2_t>(e, f);
}

verify::Order order(Layout l) { return l == Layout::kRow ? verify::Order::kRowMajor : verify::Order::kColumnMajor; }

// The FP8 tensor core keeps about 14 bits of its sums (cublas_tolerance): an epsilon of 2^-13.
constexpr double kFp8AccumulateEps = 1.0 / 8192;

unsigned grid_for(std::size_t count) {
  const std::size_t blocks = (count + 255) / 256;
  return unsigned(blocks < 2048 ? (blocks ? blocks : 1) : 2048);
}

template <class T>
__global__ void relative_error_kernel(const T* d, const T* r, std::size_t n, double* sums,
                                      unsigned long long* max_bits, unsigned long long* nonfinite) {
  double diff2 = 0, ref2 = 0, mx = 0;
  unsigned long long bad = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const double x = to_double(d[i]), y = to_double(r[i]);
    if (!isfinite(x) || !isfinite(y)) {
      ++bad;
      continue;
    }
    const double e = x - y;
    diff2 += e * e;
    ref2 += y * y;
    mx = fmax(mx, fabs(e));
  }
  for (int off = 16; off > 0; off >>= 1) {
    diff2 += __shfl_down_sync(0xffffffffu, diff2, off);
    ref2 += __shfl_down_sync(0xffffffffu, ref2, off);
    mx = fmax(mx, __shfl_down_sync(0xffffffffu, mx, off));
    bad += __shfl_down_sync(0xffffffffu, bad, off);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sums[0], diff2);
    atomicAdd(&sums[1], ref2);
    // Non-negative doubles order like their bit patterns.
    atomicMax(max_bits, static_cast<unsigned long long>(__double_as_longlong(mx)));
    atomicAdd(nonfinite, bad);
  }
}


}  // namespace

void fill_random(void* data, Element e, std::size_t count, std::uint64_t seed, cudaStream_t stream, double r) {
  dispatch(e, [&](auto t) {
    using T = decltype(t);
    verify::fill_random_device<T>(static_cast<T*>(data), count, seed, verify::Distribution::uniform(-r, r), stream);
  });
}

void poison(void* data, Element e, std::size_t count, cudaStream_t stream) {
  check_cuda(cudaMemsetAsync(data, verify::kPoisonByte, count * std::size_t(size_bytes(e)), stream), "poisoning D");
}

void copy_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
}

RelativeError relative_error(const void* d, const void* ref, Element e, std::size_t count, cudaStream_t stream) {
  DeviceAllocation scratch(4 * sizeof(double), "the error sums");
  check_cuda(cudaMemsetAsync(scratch.get(), 0, scratch.bytes(), stream), "cudaMemsetAsync");
  auto* sums = static_cast<double*>(scratch.get());
  auto* max_bits = reinterpret_cast<unsigned long long*>(sums + 2);
  auto* bad = reinterpret_cast<unsigned long long*>(sums + 3);
  dispatch(e, [&](auto t) {
    using T = decltype(t);
    relative_error_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<const T*>(d), static_cast<const T*>(ref),
                                                                 count, sums, max_bits, bad);
  });
  check_cuda(cudaGetLastError(), "launching the relative-error kernel");
  double host[4];
  check_cuda(cudaMemcpyAsync(host, scratch.get(), sizeof host, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  check_cuda(cudaStreamSynchronize(stream), "the relative-error kernel");
  RelativeError r;
  unsigned long long mb, nb;
  std::memcpy(&mb, &host[2], sizeof mb);
  std::memcpy(&nb, &host[3], sizeof nb);
  std::memcpy(&r.max_abs, &mb, sizeof mb);
  r.nonfinite = std::int64_t(nb);
  // An all-zero reference has no scale: fall back to the absolute error.
  r.relative = host[1] > 0 ? std::sqrt(host[0] / host[1]) : std::sqrt(host[0]);
  return r;
}

double cublas_tolerance(std::int64_t k, Element d, Element ab, double safety) {
  double u_out = 0;
  dispatch(d, [&](auto t) { u_out = unit_roundoff<decltype(t)>(); });
  if (is_fp8(ab)) return 2 * u_out + double((std::max<std::int64_t>(k, 1) + 31) / 32) * kFp8AccumulateEps;
  const double eps_acc = 2 * unit_roundoff<float>();
  return 2 * u_out + safety * std::sqrt(double(k < 1 ? 1 : k)) * eps_acc;
}

void spin(double microseconds, cudaStream_t stream) {
  check_cuda(tessel::verify::spin(static_cast<unsigned long long>(microseconds * 1000.0), stream), "launching the spin kernel");
}

// ---- device reference --------------------------------------------------------------------------

struct DeviceReference::Impl {
  verify::DeviceReference ref;
  GemmShape shape;
  OperandSet ops;
};

DeviceReference::DeviceReference(const GemmShape& s, const OperandSet& ops, MatrixRef a, MatrixRef b, MatrixRef c,
                                 double alpha, double beta, cudaStream_t stream)
    : impl_(std::make_unique<Impl>()) {
  impl_->shape = s;
  impl_->ops = ops;
  if (ops.a.element != ops.b.element || ops.c.element != ops.d.element) {
    throw ProfError(kExitFailed, "the device reference takes A and B of one type and C of D's type, not " + to_string(ops));
  }
  if (s.batch != 1) throw ProfError(kExitFailed, "the device reference checks one matrix; the problem has a batch");
  const bool known = dispatch_among<half_t, bfloat16_t, float, float_e4m3_t>(ops.a.element, [&](auto ta) {
    const bool d_known = dispatch_among<half_t, bfloat16_t, float>(ops.d.element, [&](auto tc) {
      using TA = decltype(ta);
      using TC = decltype(tc);
      auto va = verify::make_view(static_cast<const TA*>(a.data), s.m, s.k, order(ops.a.layout), a.ld);
      auto vb = verify::make_view(static_cast<const TA*>(b.data), s.k, s.n, order(ops.b.layout), b.ld);
      auto vc = verify::make_view(static_cast<const TC*>(c.data), s.m, s.n, order(ops.c.layout), c.ld);
      impl_->ref = verify::device_reference_gemm<TA, TA, TC>(alpha, va, vb, beta, vc, stream);
    });
    if (!d_known) {
      throw ProfError(kExitFailed, "the device reference checks D = alpha A B + beta C with a 16- or 32-bit D, not " +
                                       std::string(to_string(ops.d.element)) +
                                       " (an FP8 D is the fused epilogue's, checked against its unfused chain)");
    }
  });
  if (!known) throw ProfError(kExitFailed, "the device reference has no instantiation for A and B of " + std::string(to_string(ops.a.element)));
}

DeviceReference::~DeviceReference() = default;

DeviceCheck DeviceReference::check(MatrixRef d, cudaStream_t stream) const {
  DeviceCheck out;
  const GemmShape& s = impl_->shape;
  dispatch_among<half_t, bfloat16_t, float>(impl_->ops.d.element, [&](auto td) {
    using TD = decltype(td);
    auto vd = verify::make_view(static_cast<const TD*>(d.data), s.m, s.n, order(impl_->ops.d.layout), d.ld);
    verify::Tolerance tol = verify::make_tolerance<float, TD>();
    if (is_fp8(impl_->ops.a.element)) tol.accumulate_eps = kFp8AccumulateEps;
    const auto report = verify::device_compare<TD>(vd, impl_->ref, tol, 1, stream);
    out.checked = report.checked;
    out.failed = report.failed;
    out.unwritten = report.unwritten;
    out.nonfinite = report.nonfinite;
    out.worst_ratio = report.has_worst ? report.worst.ratio : 0;
    if (!report.passed()) out.first_failure = report.summary();
  });
  return out;
}

}  // namespace tessel::prof
