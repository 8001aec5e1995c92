#include "device/problem_buffers.hpp"

#include <algorithm>
#include <cmath>

#include "core/counterpart.hpp"

namespace tessel::prof {

namespace {
std::int64_t ld_of(const Operand& op, std::int64_t rows, std::int64_t cols) {
  return op.layout == Layout::kRow ? cols : rows;
}
// D's bytes per element: the kernels' or cuBLAS's output, whichever is wider.
std::size_t d_bytes(const OperandSet& o) {
  return std::size_t(std::max(size_bytes(o.d.element), size_bytes(cublas_counterpart(o).d.element)));
}
std::string gib(double bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f GiB", bytes / double(1ull << 30));
  return b;
}
}  // namespace

std::size_t set_bytes(const GemmShape& s, const OperandSet& o, bool reads_c) {
  const std::size_t l = std::size_t(s.batch), m = std::size_t(s.m), n = std::size_t(s.n), k = std::size_t(s.k);
  std::size_t bytes = l * (m * k * size_bytes(o.a.element) + k * n * size_bytes(o.b.element) + m * n * d_bytes(o));
  if (reads_c) bytes += l * m * n * size_bytes(o.c.element);
  return bytes;
}

BufferPlan plan_buffers(std::size_t set_bytes, long long l2_bytes, int max_sets, std::size_t budget_bytes) {
  if (set_bytes > budget_bytes) {
    throw ProfError(kExitFailed, "one buffer set needs " + gib(double(set_bytes)) + ", more than the " +
                                     gib(double(budget_bytes)) + " of device memory the profiler allows itself");
  }
  const double need = std::ceil(2.0 * double(std::max(0LL, l2_bytes)) / double(std::max<std::size_t>(set_bytes, 1))) + 1;
  int sets = int(std::min<double>(need, 1e6));
  sets = std::max(2, std::min(sets, std::max(2, max_sets)));
  while (sets > 1 && double(sets) * double(set_bytes) > double(budget_bytes)) --sets;
  return {set_bytes, sets};
}

ProblemBuffers::ProblemBuffers(const GemmShape& s, const OperandSet& ops, bool reads_c, const BufferPlan& plan,
                               std::uint64_t seed, cudaStream_t stream, bool epilogue_inputs)
    : shape_(s), ops_(ops) {
  lda_ = ld_of(ops.a, s.m, s.k);
  ldb_ = ld_of(ops.b, s.k, s.n);
  ldc_ = ld_of(ops.d, s.m, s.n);
  const auto l = std::size_t(s.batch);
  a_elems_ = l * std::size_t(s.m * s.k);
  b_elems_ = l * std::size_t(s.k * s.n);
  d_elems_ = l * std::size_t(s.m * s.n);
  c_elems_ = reads_c ? d_elems_ : 0;
  for (int i = 0; i < plan.sets; ++i) {
    Set set{DeviceAllocation(a_elems_ * size_bytes(ops.a.element), "A"),
            DeviceAllocation(b_elems_ * size_bytes(ops.b.element), "B"),
            DeviceAllocation(c_elems_ * size_bytes(ops.c.element), "C"),
            DeviceAllocation(d_elems_ * d_bytes(ops), "D")};
    // Distinct seeds per set and operand: no two sets hold the same data.
    const std::uint64_t base = seed * 1000003ull + std::uint64_t(i) * 4;
    fill_random(set.a.get(), ops.a.element, a_elems_, base + 0, stream);
    fill_random(set.b.get(), ops.b.element, b_elems_, base + 1, stream);
    if (c_elems_) fill_random(set.c.get(), ops.c.element, c_elems_, base + 2, stream);
    sets_.push_back(std::move(set));
  }
  ref_d_ = DeviceAllocation(d_elems_ * d_bytes(ops), "the reference D");
  if (epilogue_inputs) {
    const double spread = std::sqrt(double(s.k)) / 3;
    scale_d_value_ = float(448.0 / (4.0 * spread));
    bias_ = DeviceAllocation(std::size_t(s.m) * size_bytes(Element::kBF16), "the bias");
    scale_d_ = DeviceAllocation(sizeof(float), "scale_d");
    amax_ = DeviceAllocation(sizeof(float), "amax");
    fill_random(bias_.get(), Element::kBF16, std::size_t(s.m), seed * 1000003ull + 999983ull, stream, spread);
    check_cuda(cudaMemcpyAsync(scale_d_.get(), &scale_d_value_, sizeof(float), cudaMemcpyHostToDevice, stream), "setting scale_d");
    check_cuda(cudaMemsetAsync(amax_.get(), 0, sizeof(float), stream), "zeroing amax");
  }
  check_cuda(cudaStreamSynchronize(stream), "filling the operands");
}

GemmArguments ProblemBuffers::args(int set, const GemmProblem& p) const {
  const Set& s = sets_.at(std::size_t(set));
  GemmArguments a;
  a.shape = shape_;
  a.A = s.a.get();
  a.lda = lda_;
  a.batch_stride_a = shape_.m * shape_.k;
  a.B = s.b.get();
  a.ldb = ldb_;
  a.batch_stride_b = shape_.k * shape_.n;
  a.C = c_elems_ ? s.c.get() : nullptr;
  a.ldc = ldc_;
  a.batch_stride_c = shape_.m * shape_.n;
  a.D = s.d.get();
  a.ldd = ldc_;
  a.batch_stride_d = shape_.m * shape_.n;
  a.alpha = p.alpha;
  a.beta = p.beta;
  a.bias = bias_.get();
  a.scale_d = static_cast<const float*>(scale_d_.get());
  a.amax = static_cast<float*>(amax_.get());
  a.raster = p.raster;
  a.swizzle = p.swizzle;
  return a;
}

}  // namespace tessel::prof
