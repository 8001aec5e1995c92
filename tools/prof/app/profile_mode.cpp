// --mode=profile: every selected kernel and cuBLAS on every problem of the sweep, timed on the
// GPU, verified, and written out.
#include <unistd.h>

#include <algorithm>
#include <map>

#include "app/device_measure.hpp"
#include "app/modes.hpp"
#include "app/outputs.hpp"
#include "app/row_verifier.hpp"
#include "core/counterpart.hpp"
#include "core/error.hpp"
#include "core/progress.hpp"
#include "core/report.hpp"
#include "core/selection.hpp"
#include "device/cublas_gemm.hpp"
#include "device/cuda_check.hpp"
#include "device/device_info.hpp"
#include "device/gpu_ops.hpp"
#include "device/problem_buffers.hpp"
#include "device/timing.hpp"
#include "kernels/registry.hpp"

namespace tessel::prof {

std::string no_gpu_sentence(const std::string& why) {
  return "profile mode needs a CUDA GPU, and none is visible (" + why +
         "); use --mode=analyze for the wave and roofline analysis without a GPU (with --sm-count=N, or "
         "--device-profile=FILE measured on the GPU), or --mode=enumerate to list the compiled kernels";
}

int run_device_info(const Options& opt, std::ostream& out) {
  std::string why;
  if (visible_device_count(why) == 0) {
    throw ProfError(kExitNoGpu, "--device-info needs a CUDA GPU, and none is visible (" + why + ")");
  }
  out << describe(query_device(opt.device));
  return kExitOk;
}

namespace {

bool has(const std::vector<Provider>& v, Provider p) { return std::find(v.begin(), v.end(), p) != v.end(); }
bool has(const std::vector<Verifier>& v, Verifier p) { return std::find(v.begin(), v.end(), p) != v.end(); }

class Profiler {
 public:
  Profiler(const Options& opt, const DeviceInfo& dev, cudaStream_t stream)
      : opt_(opt), dev_(dev), stream_(stream) {
    want_tessel_ = has(opt.providers, Provider::kTessel);
    want_cublas_ = has(opt.providers, Provider::kCublas);
    verify_cublas_ = opt.verification_enabled && has(opt.verification_providers, Verifier::kCublas);
    verify_device_ = opt.verification_enabled && has(opt.verification_providers, Verifier::kDevice);
    if (want_cublas_ || verify_cublas_ || !opt.device_profile.empty()) cublas_ = std::make_unique<Cublas>();
  }

  Cublas* cublas() { return cublas_.get(); }
  bool any_failed() const { return any_failed_; }
  std::vector<ProfileRow>& rows() { return rows_; }

  std::size_t units(const std::vector<const GemmOperation*>& ops) const {
    return (want_tessel_ ? ops.size() : 0) + (want_cublas_ ? 1 : 0);
  }

  /// All providers and kernels of one operand set on one problem.
  void run(const GemmProblem& problem, const OperandSet& ops, const std::vector<const GemmOperation*>& kernels,
           Progress& progress) {
    const bool reads_c = problem.beta != 0;
    // cuBLAS's column: the same operation where cuBLAS has it, else its plain GEMM (counterpart.hpp).
    const OperandSet cublas_ops = cublas_counterpart(ops);
    const bool fused = std::any_of(kernels.begin(), kernels.end(), [](const GemmOperation* op) {
      return op->description().epilogue != Epilogue::kLinearCombination;
    });
    ProfileRow base;
    base.problem = problem;
    base.operands = ops;
    std::unique_ptr<ProblemBuffers> buf;
    try {
      std::size_t free_bytes = 0, total = 0;
      check_cuda(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
      // Keep room for the reference D, with device verification its three doubles per element, and
      // for the fused epilogue's reference its f32 accumulators and e4m3 D.
      const double mn = double(problem.shape.m) * double(problem.shape.n) * double(problem.shape.batch);
      const double reserve = mn * size_bytes(cublas_ops.d.element) + (verify_device_ ? 24.0 * mn : 0.0) +
                             (fused && verify_cublas_ ? 5.0 * mn : 0.0);
      const double budget = std::max(0.0, 0.6 * double(free_bytes) - reserve);
      const BufferPlan plan = plan_buffers(set_bytes(problem.shape, ops, reads_c), dev_.l2_bytes,
                                           opt_.warmup_iterations + opt_.profiling_iterations, std::size_t(budget));
      buf = std::make_unique<ProblemBuffers>(problem.shape, ops, reads_c, plan, opt_.seed, stream_, fused);
    } catch (const ProfError& e) {
      // Every row of this problem says why none of them ran.
      if (want_cublas_) not_run(base, "cublas", "cublas", "Error Memory Allocation", e.what(), progress);
      if (want_tessel_)
        for (const GemmOperation* op : kernels)
          not_run(base, "tessel", op->description().name, "Error Memory Allocation", e.what(), progress);
      return;
    }

    // Every row in sweep order; the timed ones are timed together at the end, in turns.
    std::vector<ProfileRow> rows;
    std::vector<std::function<void(int)>> timed;  // one per timed row
    std::vector<std::size_t> timed_row;           // its index in `rows`
    std::vector<OperandSet> timed_ops;            // the operands it reads and writes (GB/s)
    auto time_later = [&](ProfileRow row, const OperandSet& o, std::function<void(int)> launch) {
      timed.push_back(std::move(launch));
      timed_row.push_back(rows.size());
      timed_ops.push_back(o);
      rows.push_back(std::move(row));
    };
    std::optional<std::size_t> cublas_row;  // the timed cuBLAS row, the ratios' reference

    VerifierSetup setup;
    setup.cublas = verify_cublas_;
    setup.device = verify_device_;
    setup.blas = cublas_.get();
    setup.reference_note = "cuBLAS was not asked for";
    if (cublas_) {
      GemmArguments a0 = buf->args(0, problem);
      a0.D = buf->reference_d();
      if (reads_c) copy_device(buf->reference_d(), a0.C, buf->d_elements() * size_bytes(cublas_ops.d.element), stream_);
      const std::string st = cublas_->gemm(a0, cublas_ops, stream_);
      check_cuda(cudaStreamSynchronize(stream_), "cuBLAS's reference run");
      setup.have_reference = st == "Success" && ops.c.layout == ops.d.layout && cublas_ops == ops;
      setup.reference_note = st != "Success" || cublas_ops == ops
                                 ? "cuBLAS returned " + st
                                 : "cuBLAS runs a different operation here (" + cublas_counterpart_note(ops) + ")";
      if (want_cublas_) {
        progress.step("cublas " + to_string(problem.shape));
        ProfileRow row = base;
        row.provider = row.kernel = "cublas";
        if (st != "Success") {
          row.status = st;
          row.reason = "cuBLAS cannot run this problem";
          row.verification = kNotRun;
          rows.push_back(row);
        } else {
          row.ratio = 1.0;
          row.reason = cublas_counterpart_note(ops);
          cublas_row = rows.size();
          time_later(row, cublas_ops, [&](int i) {
            const std::string s = cublas_->gemm(buf->args(i % buf->sets(), problem), cublas_ops, stream_);
            if (s != "Success") throw ProfError(kExitFailed, "cuBLAS returned " + s + " during the timed runs");
          });
        }
      }
    }

    // Each kernel's prepared launches (one per buffer set, so that a timed run only enqueues a
    // kernel) and workspaces live until the timing below is done.
    std::vector<std::vector<std::unique_ptr<GemmLaunch>>> prepared;
    std::vector<std::vector<DeviceAllocation>> workspaces;
    if (want_tessel_) {
      RowVerifier verifier(setup, *buf, problem, ops, stream_);
      prepared.reserve(kernels.size());
      workspaces.reserve(kernels.size());
      for (const GemmOperation* op : kernels) {
        const std::string& name = op->description().name;
        progress.step(name + " " + to_string(problem.shape));
        ProfileRow row = base;
        row.provider = "tessel";
        row.kernel = name;
        const GemmArguments a0 = buf->args(0, problem);
        if (StatusInfo s = op->can_implement(a0); !s.ok()) {
          not_run(rows, row, std::string(to_string(s.status)), s.message);
          continue;
        }
        auto& launches = prepared.emplace_back();
        auto& spaces = workspaces.emplace_back();
        StatusInfo failure;
        for (int set = 0; set < buf->sets() && failure.ok(); ++set) {
          const GemmArguments a = buf->args(set, problem);
          spaces.emplace_back(op->workspace_size(a), "the kernel's workspace");
          launches.emplace_back();
          if (StatusInfo s = op->initialize(a, spaces.back().get(), stream_, launches.back()); !s.ok()) failure = s;
        }
        if (!failure.ok()) {
          not_run(rows, row, std::string(to_string(failure.status)), failure.message);
          continue;
        }
        if (opt_.verification_enabled) {
          poison(a0.D, ops.d.element, buf->d_elements(), stream_);
          // The amax only rises: it starts from 0 for the run whose value is checked. The timed runs
          // leave it as they find it (their work does not depend on it).
          if (a0.amax) check_cuda(cudaMemsetAsync(a0.amax, 0, sizeof(float), stream_), "zeroing amax");
          if (StatusInfo s = launches[0]->run(stream_); !s.ok()) throw ProfError(kExitFailed, name + ": " + s.what());
          check_cuda(cudaStreamSynchronize(stream_), name + " (verification run)");
          verifier.verify(row, op->description());
        }
        if (row.verification == kFailed) any_failed_ = true;
        time_later(row, ops, [&launches, name, this](int i) {
          if (StatusInfo s = launches[std::size_t(i) % launches.size()]->run(stream_); !s.ok())
            throw ProfError(kExitFailed, name + ": " + s.what());
        });
      }
    }

    if (!timed.empty()) {
      const std::vector<Timing> t = time_interleaved(timed, opt_.warmup_iterations, opt_.profiling_iterations, stream_);
      for (std::size_t j = 0; j < t.size(); ++j) fill_timing(rows[timed_row[j]], t[j], buf->sets(), timed_ops[j]);
    }
    for (ProfileRow& row : rows) {
      if (!cublas_row) break;
      row.cublas_tflops = rows[*cublas_row].tflops;
      if (row.ran) row.ratio = row.tflops / *row.cublas_tflops;
    }
    rows_.insert(rows_.end(), rows.begin(), rows.end());
  }

 private:
  static void not_run(std::vector<ProfileRow>& rows, ProfileRow row, const std::string& status, const std::string& reason) {
    row.status = status.empty() ? "Error" : status;
    row.reason = reason;
    row.verification = kNotRun;
    rows.push_back(row);
  }
  void not_run(const ProfileRow& base, const std::string& provider, const std::string& kernel, const std::string& status,
               const std::string& reason, Progress& progress) {
    progress.step(kernel);
    ProfileRow row = base;
    row.provider = provider;
    row.kernel = kernel;
    not_run(rows_, row, status, reason);
  }

  // GB/s counts the operands the timed operation read and wrote (`ops`: cuBLAS's may differ from
  // the row's group).
  void fill_timing(ProfileRow& row, const Timing& t, int sets, const OperandSet& ops) const {
    row.ran = true;
    row.runtime_ms = t.median_ms;
    row.iterations = t.iterations;
    row.buffer_sets = sets;
    const double seconds = t.median_ms * 1e-3;
    row.tflops = gemm_flops(row.problem.shape) / seconds / 1e12;
    row.gbps = gemm_bytes(row.problem.shape, ops, row.problem.beta != 0) / seconds / 1e9;
  }

  const Options& opt_;
  const DeviceInfo& dev_;
  cudaStream_t stream_;
  bool want_tessel_, want_cublas_, verify_cublas_, verify_device_;
  std::unique_ptr<Cublas> cublas_;
  std::vector<ProfileRow> rows_;
  bool any_failed_ = false;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate"); }
  ~Stream() {
    if (s) (void)cudaStreamDestroy(s);
  }
};

}  // namespace

int run_profile(const Options& opt, const std::string& command_line, std::ostream& out, std::ostream& err) {
  std::string why;
  if (visible_device_count(why) == 0) throw ProfError(kExitNoGpu, no_gpu_sentence(why));
  const DeviceInfo dev = query_device(opt.device);
  check_cuda(cudaSetDevice(opt.device), "cudaSetDevice");

  // Which kernels, grouped by the operand set each serves.
  std::vector<const GemmOperation*> ops_all = registry().operations();
  const auto selected = select_kernels(compiled_kernels(), opt, catalogue_names());
  const bool want_tessel = has(opt.providers, Provider::kTessel);
  std::vector<OperandSet> sets = operand_sets(selected);
  if (selected.empty()) {
    const bool filters = opt.a.element || opt.a.layout || opt.b.element || opt.b.layout || opt.c.element ||
                         opt.c.layout || opt.d.element || opt.d.layout;
    if (want_tessel || !filters) {
      Options names_only;
      names_only.kernels = opt.kernels;
      names_only.ignore_kernels = opt.ignore_kernels;
      throw usage_error(no_operand_match_sentence(select_kernels(compiled_kernels(), names_only, catalogue_names()), opt));
    }
    sets = {operands_from_filters(opt)};  // cuBLAS alone, on the operands the flags spell
  }
  std::map<std::size_t, std::vector<const GemmOperation*>> by_set;
  for (const GemmOperation* op : ops_all) {
    const auto& d = op->description();
    if (std::none_of(selected.begin(), selected.end(), [&](const KernelDescription& k) { return k.name == d.name; }))
      continue;
    by_set[std::size_t(std::find(sets.begin(), sets.end(), operands_of(d)) - sets.begin())].push_back(op);
  }

  Stream stream;
  Profiler prof(opt, dev, stream.s);
  const RunInfo info = run_info(dev, command_line);

  if (!opt.device_profile.empty()) {
    err << "measuring copy bandwidth and matrix rate for " << opt.device_profile << " ...\n";
    write_device_profile(opt.device_profile, measure_device(dev, *prof.cublas(), stream.s, opt.seed));
    out << "wrote " << opt.device_profile << "\n";
  }

  const auto problems = expand_problems(opt);
  std::size_t total = 0;
  for (std::size_t i = 0; i < sets.size(); ++i) total += problems.size() * prof.units(by_set[i]);
  const bool tty = isatty(STDERR_FILENO) != 0;
  Progress progress(total, opt.progress == ProgressMode::kAlways || (opt.progress == ProgressMode::kAuto && tty), err,
                    opt.progress == ProgressMode::kAlways ? 0.0 : 2.0);

  std::string fatal;
  try {
    for (const GemmProblem& p : problems)
      for (std::size_t i = 0; i < sets.size(); ++i) prof.run(p, sets[i], by_set[i], progress);
  } catch (const std::exception& e) {
    // A failed launch can leave the CUDA context unusable: keep the rows measured so far.
    fatal = e.what();
  }
  progress.finish();

  out << profile_table(prof.rows());
  if (!fatal.empty()) {
    try {
      write_profile_outputs(opt, prof.rows(), info, out);
    } catch (const std::exception& e) {
      fatal += "; and writing the outputs failed: " + std::string(e.what());
    }
    throw ProfError(kExitFailed, fatal + " (the rows measured before it are in the outputs)");
  }
  write_profile_outputs(opt, prof.rows(), info, out);
  if (prof.any_failed()) {
    err << "tessel-prof: verification failed for at least one kernel; see the verification column\n";
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace tessel::prof
