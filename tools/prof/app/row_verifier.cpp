#include "app/row_verifier.hpp"

#include <cstdio>

namespace tessel::prof {

namespace {
std::string sci(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}
void add(std::string& notes, const std::string& r) { notes += (notes.empty() ? "" : "; ") + r; }

std::string summary(const FusedCheck& c) {
  return "against the unfused chain on cuBLAS's f32 accumulators: " + std::to_string(c.differ) + " of " +
         std::to_string(c.checked) + " elements 1 e4m3 ulp apart, " + std::to_string(c.beyond_one) + " further (worst " +
         (c.worst_ulps == ~0u ? std::string("NaN") : std::to_string(c.worst_ulps)) + "); amax " + sci(c.amax) + " vs " +
         sci(c.amax_reference) + ", relative error " + sci(c.amax_relative) + " (tolerance " + sci(c.amax_tolerance) + ")";
}
}  // namespace

void RowVerifier::verify(ProfileRow& row, const KernelDescription& kernel) {
  bool checked = false, failed = false;
  std::string notes;
  const bool fused = kernel.epilogue != Epilogue::kLinearCombination;
  if (setup_.cublas) {
    if (fused) against_chain(kernel.epilogue, checked, failed, notes);
    else against_cublas(row, checked, failed, notes);
  }
  if (setup_.device) {
    if (fused) {
      add(notes, "not checked against the device reference: it computes alpha A B + beta C, not the fused epilogue "
                 "(--verification-providers=cublas checks it against the unfused chain)");
    } else {
      against_device(row, checked, failed, notes);
    }
  }
  row.verification = !checked ? kNotVerified : failed ? kFailed : kPassed;
  row.reason = notes;
}

void RowVerifier::against_cublas(ProfileRow& row, bool& checked, bool& failed, std::string& notes) {
  if (!setup_.have_reference) {
    add(notes, "not checked against cuBLAS: " + setup_.reference_note);
    return;
  }
  const RelativeError e = relative_error(buf_.d(0).data, buf_.reference_d(), ops_.d.element, buf_.d_elements(), stream_);
  const double tol = cublas_tolerance(problem_.shape.k, ops_.d.element, ops_.a.element);
  row.cublas_rel_error = e.relative;
  row.cublas_tolerance = tol;
  checked = true;
  if (e.nonfinite > 0) {
    failed = true;
    add(notes, std::to_string(e.nonfinite) + " elements NaN, infinite or never written");
  } else if (!(e.relative <= tol)) {
    failed = true;
    add(notes, "relative error " + sci(e.relative) + " against cuBLAS exceeds the tolerance " + sci(tol));
  }
}

void RowVerifier::against_chain(Epilogue e, bool& checked, bool& failed, std::string& notes) {
  if (!setup_.blas) {
    add(notes, "not checked against the unfused chain: cuBLAS did not start");
    return;
  }
  if (!chains_.count(e) && !chain_errors_.count(e)) {
    try {
      chains_[e] = std::make_unique<FusedReference>(*setup_.blas, buf_.args(0, problem_), ops_, e, stream_);
    } catch (const std::exception& x) {
      chain_errors_[e] = x.what();
    }
  }
  if (!chains_.count(e)) {
    add(notes, "not checked against the unfused chain: " + chain_errors_[e]);
    return;
  }
  const FusedCheck c = chains_[e]->check(buf_.d(0).data, buf_.args(0, problem_).amax, stream_);
  checked = true;
  failed = failed || !c.passed();
  add(notes, std::string(c.passed() ? "" : "FAILED ") + summary(c));
}

void RowVerifier::against_device(ProfileRow& row, bool& checked, bool& failed, std::string& notes) {
  if (!device_ref_ && device_ref_error_.empty()) {
    try {
      device_ref_ = std::make_unique<DeviceReference>(problem_.shape, ops_, buf_.a(0), buf_.b(0), buf_.c(0), problem_.alpha,
                                                      problem_.beta, stream_);
    } catch (const std::exception& e) {
      device_ref_error_ = e.what();
    }
  }
  if (!device_ref_) {
    add(notes, "not checked against the device reference: " + device_ref_error_);
    return;
  }
  const DeviceCheck c = device_ref_->check(buf_.d(0), stream_);
  row.device_failed = double(c.failed);
  row.device_worst = c.worst_ratio;
  checked = true;
  if (c.failed > 0) {
    failed = true;
    add(notes, "device reference: " + c.first_failure);
  }
}

}  // namespace tessel::prof
