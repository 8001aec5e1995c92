"""The GEMM launcher's decisions, checked on the host.

The operands are DLPack descriptions without memory (dlpack_fake.FakeArray), so every check up
to the launch runs: element types, ranks, devices, shapes, layouts from strides, the transposed
problem for a column-major D, and the kernel's argument checks (alignment, leading dimensions),
which must say what tessel's C++ handle says. A problem that passes every check reaches the
device and, here, ends at the missing driver or GPU.
"""

import pytest
from dlpack_fake import CPU, FakeArray

import tessel
from tessel import _core

M, N, K = 256, 128, 64


class Recorder:
    """A kernel resolver that remembers what it was asked for and returns a kernel that is never
    loaded unless the checks pass (and then fails for want of a GPU)."""

    def __init__(self, tile=(128, 128)):
        self.asked = []   # the kinds of problem
        self.shapes = []  # and their (M, N, K)
        self.tile = tile

    def __call__(self, ab, c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted, transposable, rowwise=False):
        self.asked.append((ab, c, a_row, b_row, epilogue, device, tma_align))
        self.shapes.append((m, n, k))
        self.transposable = transposable
        return _core.Kernel(b"not a cubin", "test_kernel", "test_symbol", "sm_90a", ab, c, a_row, b_row, True, epilogue,
                            self.tile[0], self.tile[1], 128, 49152)


class Transposer(Recorder):
    """A resolver that answers D^T's problem (D^T = B^T A^T, D^T column-major) with a Hopper
    kernel of that problem's layouts, or with the given layouts' kernel when `wrong_layouts`."""

    def __init__(self, wrong_layouts=False):
        super().__init__()
        self.wrong_layouts = wrong_layouts

    def __call__(self, ab, c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted, transposable, rowwise=False):
        super().__call__(ab, c, a_row, b_row, epilogue, device, tma_align, m, n, k, promoted, transposable)
        layouts = (a_row, b_row) if self.wrong_layouts else (not b_row, not a_row)
        return _core.Kernel(b"not a cubin", "test_kernel_t", "test_symbol", "sm_90a", ab, c, *layouts, True, epilogue,
                            128, 64, 384, 49152, hopper=True, box_a=(64, 128), box_b=(64, 64)), True


def run(A, B, C=None, D=None, *, alpha=1.0, beta=0.0, epilogue=0, resolver=None):
    resolver = resolver or Recorder()
    if D is None:
        D = FakeArray((getattr(A, "shape", (M,))[0], getattr(B, "shape", (K, N))[-1]), "float32", ptr=0x7F0000400000)
    _core.Dispatcher(resolver).run(A, B, C, D, alpha, beta, 0, epilogue)
    return resolver


def a_(shape=(M, K), dtype="float16", **kw):
    return FakeArray(shape, dtype, ptr=kw.pop("ptr", 0x7F0000100000), **kw)


def b_(shape=(K, N), dtype="float16", **kw):
    return FakeArray(shape, dtype, ptr=kw.pop("ptr", 0x7F0000200000), **kw)


def check(call, status, message):
    """The call raises GemmError with this status and a message that starts so."""
    with pytest.raises(tessel.GemmError) as e:
        call()
    assert e.value.status == status, str(e.value)
    assert str(e.value).startswith(message), str(e.value)
    return e.value


def reaches_device(call):
    """The call passed every argument check: what stops it is the device (no driver, no GPU)."""
    with pytest.raises((tessel.GemmError, tessel.CudaError)) as e:
        call()
    assert e.value.status in ("kErrorNotSupported", "kErrorArchMismatch", "kErrorInternal"), str(e.value)
    assert "CUDA" in str(e.value) or "cubin" in str(e.value) or "device" in str(e.value)


# ---- what every call is checked for ---------------------------------------------------------------
def test_not_an_array():
    check(lambda: run([[1.0]], b_()), "kErrorInvalidDataType", "Error Invalid Data Type: A is a list, not an array")


def test_rank():
    check(lambda: run(a_((2, M, K)), b_()), "kErrorInvalidProblem", "Error Invalid Problem: A has 3 dimensions")


def test_cpu_operands():
    check(lambda: run(a_(device_type=CPU), b_()), "kErrorInvalidProblem", "Error Invalid Problem: A is on the CPU: tessel.gemm runs on CUDA tensors")
    check(lambda: run(a_(), b_(device_type=CPU)), "kErrorInvalidProblem", "Error Invalid Problem: B is on the CPU")


def test_operands_on_two_devices():
    check(lambda: run(a_(), b_(device_id=1)), "kErrorInvalidProblem", "Error Invalid Problem: B is on CUDA device 1 but A is on device 0")


def test_shapes():
    check(lambda: run(a_(), b_((K + 8, N))), "kErrorInvalidProblem", f"Error Invalid Problem: A is {M} x {K} and B is {K + 8} x {N}")
    d = FakeArray((M, N + 1), "float32", ptr=0x7F0000400000)
    check(lambda: run(a_(), b_(), D=d), "kErrorInvalidProblem", f"Error Invalid Problem: D is {M} x {N + 1} but A @ B is {M} x {N}")
    c = FakeArray((M - 1, N), "float32", ptr=0x7F0000300000)
    check(lambda: run(a_(), b_(), C=c), "kErrorInvalidProblem", f"Error Invalid Problem: C is {M - 1} x {N}")


@pytest.mark.parametrize("ta, tb", [("float32", "float32"), ("float64", "float64"), ("int8", "int8")])
def test_input_element_types(ta, tb):
    check(lambda: run(a_(dtype=ta), b_(dtype=tb)), "kErrorInvalidDataType",
          f"Error Invalid Data Type: A is {ta} and B is {tb}: the tensor-core kernels take float16, bfloat16 or FP8")


def test_mixed_inputs():
    check(lambda: run(a_(dtype="float16"), b_(dtype="bfloat16")), "kErrorInvalidDataType",
          "Error Invalid Data Type: A is float16 but B is bfloat16: A and B must have the same element type")


def test_output_element_types():
    d = FakeArray((M, N), "float64", ptr=0x7F0000400000)
    check(lambda: run(a_(), b_(), D=d), "kErrorInvalidDataType", "Error Invalid Data Type: D is float64: the output must be")
    c = FakeArray((M, N), "float16", ptr=0x7F0000300000)
    check(lambda: run(a_(), b_(), C=c), "kErrorInvalidDataType", "Error Invalid Data Type: C is float16 but D is float32")


def test_strides_that_are_neither_layout():
    check(lambda: run(a_(strides=(2 * K, 2)), b_()), "kErrorInvalidLayout",
          f"Error Invalid Layout: A ({M} x {K}) has strides ({2 * K}, 2): neither row-major")
    check(lambda: run(a_(strides=(1, 10)), b_()), "kErrorInvalidLayout", "Error Invalid Layout: A")  # columns overlap


def test_c_and_d_must_share_a_layout():
    c = FakeArray((N, M), "float32", ptr=0x7F0000300000).T  # column-major
    check(lambda: run(a_(), b_(), C=c, beta=1.0), "kErrorInvalidLayout",
          "Error Invalid Layout: C is column-major but D is row-major: C and D must have the same layout")


# ---- layouts from strides, and the kernel asked for ---------------------------------------------------
@pytest.mark.parametrize("a_row", [True, False])
@pytest.mark.parametrize("b_row", [True, False])
@pytest.mark.parametrize("d_row", [True, False])
def test_layouts_select_the_kernel(a_row, b_row, d_row):
    """Row-major D: the kernel for the operands' layouts. Column-major D: the transposed problem
    D^T = B^T A^T, whose A is B^T (row-major when B is column-major) and whose B is A^T."""
    A = a_() if a_row else FakeArray((K, M), "float16", ptr=0x7F0000100000).T
    B = b_() if b_row else FakeArray((N, K), "float16", ptr=0x7F0000200000).T
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000) if d_row else FakeArray((N, M), "float32", ptr=0x7F0000400000).T
    rec = Recorder()
    reaches_device(lambda: run(A, B, D=D, resolver=rec))
    expected = (a_row, b_row) if d_row else (not b_row, not a_row)
    assert rec.asked == [(0, 2, *expected, 0, 0, 32)]  # every row on a 32-byte sector


@pytest.mark.parametrize("k, a_ptr, expected", [
    (1008, 0x7F0000100000, 32),  # 2016-byte rows: every row starts on a 32-byte sector
    (1000, 0x7F0000100000, 16),  # 2000-byte rows: every other row starts 16 bytes off one
    (1008, 0x7F0000100010, 16),  # A's base 16 bytes off: every row of A is
])
def test_the_resolver_is_told_how_tma_meets_the_rows(k, a_ptr, expected):
    """tma_align, the resolver's seventh argument (0 where TMA cannot read A or B): 16 where some
    row starts off a 32-byte sector (the dispatcher then runs a cluster twin), else 32. The
    memo keeps the two aligned kinds apart: the same shape with straddling rows is asked again."""
    rec = Recorder()
    d = _core.Dispatcher(rec)
    A = FakeArray((M, k), "float16", ptr=a_ptr)
    B = FakeArray((N, k), "float16", ptr=0x7F0000200000).T
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    reaches_device(lambda: d.run(A, B, None, D, 1.0, 0.0, 0, 0))
    assert [a[6] for a in rec.asked] == [expected]
    if expected == 32:
        shifted = FakeArray((M, k), "float16", ptr=a_ptr + 16)
        reaches_device(lambda: d.run(shifted, B, None, D, 1.0, 0.0, 0, 0))
        reaches_device(lambda: d.run(A, B, None, D, 1.0, 0.0, 0, 0))
        assert [a[6] for a in rec.asked] == [32, 16] and len(d) == 2


def test_element_types_select_the_kernel():
    for ab, codes in (("float16", 0), ("bfloat16", 1)):
        for out, code in (("float32", 2), ("float16", 0), ("bfloat16", 1)):
            rec = Recorder()
            D = FakeArray((M, N), out, ptr=0x7F0000400000)
            reaches_device(lambda: run(a_(dtype=ab), b_(dtype=ab), D=D, resolver=rec))
            assert rec.asked[0][:2] == (codes, code)


def test_the_choice_is_remembered_per_kernel_key():
    rec = Recorder()
    d = _core.Dispatcher(rec)
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    for _ in range(3):
        reaches_device(lambda: d.run(a_(), b_(), None, D, 1.0, 0.0, 0, 0))
    reaches_device(lambda: d.run(a_(), b_(), None, D, 1.0, 0.0, 0, 1))  # another epilogue
    assert len(rec.asked) == 2 and len(d) == 2


def test_the_choice_is_asked_per_shape_and_the_memo_is_bounded():
    """The heuristic chooses by shape, so each shape of a kind is asked once; the memo forgets
    everything past 4096 shapes instead of growing with a sweep."""
    rec = Recorder()
    d = _core.Dispatcher(rec)
    for m in (256, 256, 128, 256):
        D = FakeArray((m, N), "float32", ptr=0x7F0000400000)
        reaches_device(lambda: d.run(a_((m, K)), b_(), None, D, 1.0, 0.0, 0, 0))
    assert rec.shapes == [(256, N, K), (128, N, K)] and len(d) == 2
    for m in range(1, 4100):
        D = FakeArray((m, N), "float32", ptr=0x7F0000400000)
        reaches_device(lambda: d.run(a_((m, K)), b_(), None, D, 1.0, 0.0, 0, 0))
    assert len(rec.shapes) == 2 + 4099 - 2 and 0 < len(d) < 4096  # 128 and 256 were still remembered


def test_question_is_the_problem_the_choice_sees():
    """What tessel.kernel_for(explain=True) asks the heuristic: the problem with D row-major, so a
    column-major D is the transposed problem (M and N exchanged, A^T and B^T as B' and A')."""
    d = _core.Dispatcher(Recorder())
    D_row = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    D_col = FakeArray((M, N), "float32", strides=(1, M), ptr=0x7F0000400000)
    assert d.question(a_(), b_(), None, D_row) == (0, 2, True, True, 0, 32, M, N, K, False, True)
    assert d.question(a_(), b_(), None, D_col) == (0, 2, False, False, 0, 32, N, M, K, False, True)
    C = FakeArray((M, N), "float32", ptr=0x7F0000300000)
    assert d.question(a_(), b_(), C, D_row)[-1] is False  # a C would have to be read transposed


def test_the_resolver_may_run_the_transposed_problem():
    """(kernel, True) runs D^T = B^T A^T with D^T column-major: a kernel of that problem's
    layouts (A^T column-major of a row-major A, ...), where the problem allows it (no C)."""
    d = _core.Dispatcher(Transposer())
    D = FakeArray((16, N), "float32", ptr=0x7F0000400000)
    kernel, transposed = d.select(a_((16, K)), b_(), None, D, 0)
    assert transposed and kernel.name == "test_kernel_t" and kernel.hopper
    reaches_device(lambda: d.run(a_((16, K)), b_(), None, D, 1.0, 0.0, 0, 0))
    # A resolver's mistakes are internal errors (tessel.CudaError), named.
    with pytest.raises(tessel.CudaError, match="returned test_kernel_t for a problem it does not compute"):
        _core.Dispatcher(Transposer(wrong_layouts=True)).run(a_((16, K)), b_(), None, D, 1.0, 0.0, 0, 0)
    C = FakeArray((16, N), "float32", ptr=0x7F0000300000)
    with pytest.raises(tessel.CudaError, match="asked for D\\^T's problem where D cannot be transposed"):
        _core.Dispatcher(Transposer()).run(a_((16, K)), b_(), C, D, 1.0, 1.0, 0, 0)


def test_tma_alignment_is_part_of_the_kind_of_problem():
    """Operands TMA can read (16-byte-aligned base addresses and leading dimensions) and operands
    it cannot are asked for separately: on Hopper the first get the TMA kernel, the others the
    Sm80 kernel, whose checks then say what is misaligned."""
    rec = Recorder()
    d = _core.Dispatcher(rec)
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    reaches_device(lambda: d.run(a_(), b_(), None, D, 1.0, 0.0, 0, 0))
    check(lambda: d.run(a_(ptr=0x7F0000100008), b_(), None, D, 1.0, 0.0, 0, 0), "kErrorMisalignedOperand",
          "Error Misaligned Operand: base address of A is 0x7f0000100008")
    A_ld = FakeArray((M, K), "float16", strides=(K + 4, 1), ptr=0x7F0000100000)
    check(lambda: d.run(A_ld, b_(), None, D, 1.0, 0.0, 0, 0), "kErrorMisalignedOperand", "Error Misaligned Operand: leading dimension of A is 68")
    assert [a[-1] for a in rec.asked] == [32, 0] and len(d) == 2


def test_single_rows_and_columns_fit_either_layout():
    """A 1 x K row is row- and column-major at once; the choice must not create a misalignment
    that the data does not have."""
    rec = Recorder()
    A = FakeArray((1, K), "float16", strides=(K, 1), ptr=0x7F0000100000)
    D = FakeArray((1, N), "float32", ptr=0x7F0000400000)
    reaches_device(lambda: run(A, b_(), D=D, resolver=rec))


def test_resolver_must_return_a_kernel():
    with pytest.raises(TypeError, match="must return a tessel._core.Kernel"):
        run(a_(), b_(), resolver=lambda *args: None)


# ---- the kernel's argument checks: alignment and leading dimensions ----------------------------------
def test_contiguous_operands_with_k_not_a_multiple_of_8():
    """Contiguous A (M, 60) has leading dimension 60: that is what can_implement names first."""
    check(lambda: run(FakeArray((M, 60), "float16", ptr=0x7F0000100000), FakeArray((60, N), "float16", ptr=0x7F0000200000)),
          "kErrorMisalignedOperand", "Error Misaligned Operand: leading dimension of A is 60, not a multiple of the 8 elements")


def test_misaligned_leading_dimension_of_a():
    A = FakeArray((M, K), "float16", strides=(K + 4, 1), ptr=0x7F0000100000)
    check(lambda: run(A, b_()), "kErrorMisalignedOperand",
          f"Error Misaligned Operand: leading dimension of A is {K + 4}, not a multiple of the 8 elements (16 bytes) "
          f"the vector loads need: pad it to {K + 8}, or use a lower alignment")


def test_misaligned_extent():
    A = FakeArray((M, 60), "float16", strides=(64, 1), ptr=0x7F0000100000)
    B = FakeArray((N, 60), "float16", strides=(64, 1), ptr=0x7F0000200000).T  # column-major, ld 64
    check(lambda: run(A, B), "kErrorMisalignedOperand", "Error Misaligned Operand: K is 60, not a multiple of the 8 elements")


def test_misaligned_base_address():
    A = FakeArray((M, K), "float16", ptr=0x7F0000100002)
    check(lambda: run(A, b_()), "kErrorMisalignedOperand",
          "Error Misaligned Operand: base address of A is 0x7f0000100002, not aligned to the 16 bytes")


def test_beta_without_c():
    check(lambda: run(a_(), b_(), beta=0.5), "kErrorInvalidProblem", "Error Invalid Problem: beta is nonzero but C is null")


def test_empty_problem():
    A = FakeArray((0, K), "float16", ptr=0x7F0000100000)
    D = FakeArray((0, N), "float32", ptr=0x7F0000400000)
    check(lambda: run(A, b_(), D=D), "kErrorInvalidProblem", f"Error Invalid Problem: problem size 0x{N}x{K} is empty")


def test_valid_problem_reaches_the_device():
    c = FakeArray((M, N), "float32", ptr=0x7F0000300000)
    reaches_device(lambda: run(a_(), b_(), C=c, beta=1.0))


# ---- a given kernel ------------------------------------------------------------------------------------
def kernel(ab=0, c=2, a_row=True, b_row=False, c_row=True):
    return _core.Kernel(b"", "tessel_test_kernel", "sym", "sm_90a", ab, c, a_row, b_row, c_row, 0, 128, 128, 128, 0)


def test_given_kernel_element_types():
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    check(lambda: _core.Dispatcher(None).run_kernel(kernel(ab=1), a_(), b_(), None, D, 1.0, 0.0, 0), "kErrorInvalidDataType",
          "Error Invalid Data Type: the kernel tessel_test_kernel takes bfloat16 A and B and float32 D, not float16 A and B and float32 D")


def test_given_kernel_layouts_direct_or_transposed():
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    B_col = FakeArray((N, K), "float16", ptr=0x7F0000200000).T
    reaches_device(lambda: _core.Dispatcher(None).run_kernel(kernel(), a_(), B_col, None, D, 1.0, 0.0, 0))
    # D^T = B^T A^T fits a kernel for (A row, B col, D col) given A row, B col and D col? B^T is
    # row-major and A^T column-major: the same kernel. Given D row and kernel D col: transposed.
    D_col = FakeArray((N, M), "float32", ptr=0x7F0000400000).T
    reaches_device(lambda: _core.Dispatcher(None).run_kernel(kernel(c_row=False), a_(), B_col, None, D_col, 1.0, 0.0, 0))
    check(lambda: _core.Dispatcher(None).run_kernel(kernel(a_row=False), a_(), B_col, None, D, 1.0, 0.0, 0), "kErrorInvalidLayout",
          "Error Invalid Layout: the operands are A row-major, B column-major, D row-major (or, transposed, A row-major, "
          "B column-major, D column-major), but the kernel tessel_test_kernel takes A column-major, B column-major, D row-major")


# ---- the C++ checks agree with device::Gemm::can_implement --------------------------------------------
def test_argument_checks_on_raw_values():
    ok = dict(mm=M, n=N, k=K, a=0x1000, lda=K, a_row=True, b=0x2000, ldb=K, b_row=False, c=0x3000, ldc=N, d=0x4000, ldd=N,
              c_row=True, beta=0.0, split_k=1, tile_m=128, tile_n=128)

    def call(**kw):
        return _core.check_gemm_arguments(*{**ok, **kw}.values())

    assert call() == ("kSuccess", "Success")
    assert call(split_k=2) == ("kErrorNotSupported", "Error Not Supported: split_k_slices = 2: this kernel computes K in one slice; pass 1")
    assert call(mm=-1)[1] == f"Error Invalid Problem: problem size -1x{N}x{K} has a negative extent"
    assert call(a=0)[1] == "Error Invalid Problem: a null pointer for A: pass device pointers to the matrices"
    assert call(ldd=N - 1)[1] == f"Error Invalid Problem: leading dimension of D is {N - 1}, smaller than N = {N}: rows would overlap"
    assert call(beta=1.0, ldc=N - 1)[1].startswith("Error Invalid Problem: leading dimension of C is")
    assert call(lda=K - 8)[1] == f"Error Invalid Problem: leading dimension of A is {K - 8}, smaller than K = {K}: rows would overlap"
    assert call(mm=2**31)[0] == "kErrorInvalidProblem"
    assert call(b=0x2008)[1].startswith("Error Misaligned Operand: base address of B is 0x2008")


# ---- the Python layer ------------------------------------------------------------------------------------
def test_python_level_errors():
    with pytest.raises(ValueError, match="epilogue 'tanh'"):
        tessel.gemm(a_(), b_(), out=FakeArray((M, N), "float32"), epilogue="tanh")
    with pytest.raises(ValueError, match="element type 'int8'"):
        tessel.gemm(a_(), b_(), out_dtype="int8")
    with pytest.raises(TypeError, match="allocates D only for PyTorch tensors; for other arrays pass out="):
        tessel.gemm(a_(), b_())
    with pytest.raises(TypeError, match="config must be a tessel.GemmConfig"):
        tessel.gemm(a_(), b_(), out=FakeArray((M, N), "float32"), config={"tile": (128, 128, 32)})
    with pytest.raises(ValueError, match="differs from the configuration's 'linear'"):
        tessel.gemm(a_(), b_(), out=FakeArray((M, N), "float32"), config=tessel.GemmConfig(), epilogue="relu")


def test_gemm_on_cpu_arrays_with_a_config_says_why():
    A, B = a_(device_type=CPU), b_(device_type=CPU)
    with pytest.raises(tessel.GemmError, match="A is on the CPU"):
        tessel.gemm(A, B, out=FakeArray((M, N), "float32", device_type=CPU), config=tessel.GemmConfig())


def test_torch_cpu_tensors_are_refused(torch_cpu):
    torch = torch_cpu
    A = torch.randn(M, K, dtype=torch.float16)
    B = torch.randn(K, N, dtype=torch.float16)
    with pytest.raises(tessel.GemmError, match="A is on the CPU: tessel.gemm runs on CUDA tensors") as e:
        tessel.gemm(A, B)
    assert e.value.status == "kErrorInvalidProblem"


# ---- PyTorch tensors are read directly; that must say what DLPack says ---------------------------
def tensors_to_describe(torch, device):
    base = torch.arange(64 * 48, dtype=torch.float32, device=device).reshape(64, 48)
    return [base, base.t(), base[3:40, 8:40], base[:, 8:40].t(), base.half(), base.bfloat16().t(), base.double()[1:],
            base[5:6], base[:, 7:8], torch.empty(0, 16, device=device, dtype=torch.float16),
            torch.zeros(2, 3, 4, device=device)]


def test_torch_read_agrees_with_dlpack(torch_cpu):
    torch = torch_cpu
    for t in tensors_to_describe(torch, "cpu"):
        assert _core.describe_operand(t, "torch") == _core.describe_operand(t, "dlpack"), (t.shape, t.stride(), t.dtype)
    assert _core.describe_operand(FakeArray((4, 4)), "torch") is None  # not a tensor: DLPack only


def test_tensors_dlpack_cannot_take(torch_cpu):
    torch = torch_cpu
    B = torch.zeros(K, N, dtype=torch.float16)
    with pytest.raises(tessel.GemmError, match="A requires grad, and tessel.gemm records no autograd graph: pass .detach()"):
        tessel.gemm(torch.zeros(M, K, dtype=torch.float16, requires_grad=True), B)
    with pytest.raises(tessel.GemmError, match="B is a negated view: pass .resolve_neg()"):
        tessel.gemm(torch.zeros(M, K, dtype=torch.float16), torch._neg_view(B))


# ---- tessel.gemm's C++ path, and the C++ timing loop -------------------------------------------------
def test_gemm_call_reads_dlpack_operands_in_cpp():
    """With `out`, a call on DLPack arrays is read and checked in C++ and reaches the device (here:
    the question which kernel runs on it, which needs the driver)."""
    D = FakeArray((M, N), "float32", ptr=0x7F0000400000)
    # Where a GPU exists the call would launch on the fake pointers: only check that it gets that far
    # without one.
    if _core.device_count() == 0:
        reaches_device(lambda: tessel.gemm(a_(), b_(), out=D))
    check(lambda: tessel.gemm(a_(), b_(), out=FakeArray((M, N + 8), "float32")), "kErrorInvalidProblem",
          f"Error Invalid Problem: D is {M} x {N + 8} but A @ B is {M} x {N}")
    check(lambda: tessel.gemm(a_(), b_(dtype="bfloat16"), out=D), "kErrorInvalidDataType", "Error Invalid Data Type: A is float16 but B is bfloat16")


def test_gemm_is_one_call_into_cpp():
    assert type(tessel.gemm).__name__ in ("nb_bound_method", "method") and "alpha * A @ B + beta * C" in tessel.gemm.__doc__


def test_time_launches_checks_its_sets():
    k = _core.Kernel(b"", "tessel_test_kernel", "sym", "sm_90a", 0, 2, True, False, True, 0, 128, 128, 128, 0)
    with pytest.raises(ValueError, match="each operand set is \\(A, B, D\\)"):
        _core.time_launches(k, [(a_(), b_())], 3, 0)
    check(lambda: _core.time_launches(k, [(a_(dtype="bfloat16"), b_(dtype="bfloat16"), FakeArray((M, N), "float32"))], 3, 0),
          "kErrorInvalidDataType", "Error Invalid Data Type: the kernel tessel_test_kernel takes float16 A and B")
    B_col = FakeArray((N, K), "float16", ptr=0x7F0000200000).T
    reaches_device(lambda: _core.time_launches(k, [(a_(), B_col, FakeArray((M, N), "float32", ptr=0x7F0000400000))], 3, 0))


def test_small_n_plan_is_the_cpp_handles():
    """Which decode problems the small-N TMA ring takes (kernel/small_n_rules.hpp, as
    device::GemmSmallN plans): at most 16 columns (tokens), at least 9/20 of a row block of 32
    weight rows per SM; 8 or 16 columns; 8 boxes and 3 stages from K = 8192 on; 16-row blocks
    where they even out the CTAs' rounds (14336 rows: 448 blocks of 32 are 3.39 rounds on 132
    SMs, 896 of 16 are 6.79)."""
    assert _core.small_n_plan(4096, 16, 4096, 132) == (2, 4, 0, 32)
    assert _core.small_n_plan(4096, 8, 4096, 132) == (1, 4, 0, 32)
    assert _core.small_n_plan(28672, 1, 8192, 132) == (1, 8, 3, 32)
    assert _core.small_n_plan(4096, 17, 4096, 132) is None
    assert _core.small_n_plan(1024, 16, 4096, 132) is None  # 32 row blocks for 132 SMs: split K elsewhere
    assert _core.small_n_plan(1920, 16, 4096, 132) == (2, 8, 0, 16)  # 60 row blocks: 20 * 60 >= 9 * 132; 120 of 16 fill more SMs
    assert _core.small_n_plan(14336, 16, 4096, 132) == (2, 8, 0, 16)
    assert _core.small_n_plan(6144, 1, 8192, 132) == (1, 8, 0, 16)
    assert _core.small_n_plan(7168, 16, 4096, 132) == (2, 4, 0, 32)  # 224 or 448 blocks: 0.85 of the busiest CTA either way
    assert _core.small_n_plan(4096, 16, 4096, 114) == (2, 8, 0, 16)  # 128 blocks on 114 SMs: two rounds, the second 14 blocks
    # FP8 rows are half the bytes: the 8-box ring from K = 16384 on, where a row is 16 KB as at 8192 of bf16.
    # FP8 takes the ring where the 128x64 tile would leave 3/4 of the SMs idle, or from K = 16384 on.
    assert _core.small_n_plan(4096, 1, 8192, 132, 1) == (1, 4, 0, 32)
    assert _core.small_n_plan(4224, 16, 4096, 132, 1) == (2, 4, 0, 32)  # 33 tiles of 128 rows: the ring
    assert _core.small_n_plan(4225, 16, 4096, 132, 1) is None           # 34: the 128x64 tile
    assert _core.small_n_plan(28672, 1, 8192, 132, 1) is None
    assert _core.small_n_plan(14336, 16, 4096, 132, 1) is None
    assert _core.small_n_plan(28672, 16, 16384, 132, 1) == (2, 8, 3, 32)
    assert _core.small_n_plan(28672, 16, 16383, 132, 1) is None
    assert _core.small_n_plan(2056, 8, 528, 132, 1) == (1, 8, 0, 16)
    # Promoted accumulation takes the ring wherever bf16 would: the promoted tile is 128x128.
    assert _core.small_n_plan(14336, 16, 4096, 132, 1, True) == (2, 8, 0, 16)
    assert _core.small_n_plan(28672, 1, 8192, 132, 1, promoted=True) == (1, 4, 0, 32)  # 8 KB rows: the 4-box ring
    assert _core.small_n_plan(6144, 16, 4096, 132, 1, True) is not None and _core.small_n_plan(6144, 16, 4096, 132, 1) is None
    assert _core.small_n_plan(4096, 17, 4096, 132, 1, True) is None
    with pytest.raises(ValueError, match="element_bytes is 1"):
        _core.small_n_plan(28672, 16, 4096, 132, 4)


def test_small_n_ring_names_agree_between_cpp_and_python():
    """The C++ dispatcher names the ring a call takes (dispatch/small_n_ring.hpp) as the package
    names the cubins it ships (jit/small_n.py), and says why in the sentence tessel.gemm gives."""
    from tessel.jit import small_n
    for tokens, weights, k in ((1, 4096, 4096), (16, 4096, 4096), (8, 28672, 8192), (16, 28672, 8192), (16, 28672, 16384),
                               (16, 14336, 4096), (1, 6144, 8192)):
        assert _core.small_n_ring_name(tokens, weights, k, 132) == small_n.name("bf16", *_core.small_n_plan(weights, tokens, k, 132))
        for element in small_n.ELEMENTS:  # the C++ front door's default above; each ring's plan in its element's bytes
            plan = _core.small_n_plan(weights, tokens, k, 132, small_n.element_bytes(element))
            if plan is None:  # FP8 keeps the 128x64 tile here (kernel::small_n_tma_takes_fp8)
                continue
            assert _core.small_n_ring_name(tokens, weights, k, 132, element) == small_n.name(element, *plan)
            why = small_n.reason(small_n.Ring(element, *plan), tokens, weights, k, 132)
            assert why.startswith(f"D^T = B^T A^T ({weights}x{tokens}x{k}") and small_n.name(element, *plan) in why


def test_small_n_kernel_takes_the_shipped_rings_only():
    from tessel.jit import small_n
    for ring in small_n.RINGS:
        k = _core.small_n_kernel(b"not a cubin", small_n.name(*ring), "sym", "sm_90a", *ring[1:4], element=ring[0], rows=ring[4])
        assert k.small_n and not k.hopper and k.name == small_n.name(*ring)
    with pytest.raises(ValueError, match="'bf16', 'f16', 'e4m3' or 'e5m2'"):
        _core.small_n_kernel(b"x", "n", "s", "sm_90a", 1, 4, 0, element="f32")
    assert small_n.takes("f16", "f16", ("row", "col"), "linear", False) and not small_n.takes("f16", "bf16", ("row", "col"),
                                                                                                "linear", False)
    # FP8: e4m3 in, bf16 out, fast or promoted accumulation; no FP8 out, no fused activation, no f16 promotion.
    assert small_n.takes("e4m3", "bf16", ("row", "col"), "linear", False) and small_n.takes("e4m3", "bf16", ("row", "col"), "linear", True)
    assert not small_n.takes("e4m3", "e4m3", ("row", "col"), "linear", False)
    assert not small_n.takes("e4m3", "bf16", ("row", "col"), "relu", False)
    assert not small_n.takes("bf16", "bf16", ("row", "col"), "linear", True)
    fp8 = _core.small_n_kernel(b"x", small_n.name("e4m3", 2, 4, 0, 32), "s", "sm_90a", 2, 4, 0, element="e4m3")
    assert fp8.small_n and fp8.name == "tessel_sm90_gemm_small_n_tma_e4m3_n16_4box"
    check(lambda: _core.small_n_kernel(b"x", "n", "s", "sm_90a", 4, 8, 3), "kErrorNotSupported",
          "Error Not Supported: a small-N TMA ring of 32 columns, 8 boxes and 3 stages does not exist")
    assert _core.small_n_kernel(b"x", "n", "s", "sm_90a", 8, 4, 0).small_n  # the widest ring, shipped or not
    check(lambda: _core.small_n_kernel(b"x", "n", "s", "sm_90a", 2, 4, 0, rows=16), "kErrorNotSupported",
          "Error Not Supported: a small-N TMA ring of 16-row blocks with 16 columns, 4 boxes and 0 stages does not exist")
    check(lambda: _core.small_n_kernel(b"x", "n", "s", "sm_90a", 2, 4, 0, rows=8), "kErrorNotSupported",
          "Error Not Supported: a small-N TMA ring of 8-row blocks does not exist")
