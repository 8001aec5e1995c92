"""@kernel, @jit and compile: tracing, specialising, caching and launching DSL kernels.

    @tessel.kernel                       # traced to CUDA C++ per argument signature
    def add_kernel(gA, gB, gC): ...
    @tessel.jit                          # host code: runs in Python, launches kernels
    def add(mA, mB, mC): add_kernel(mA, mB, mC).launch(grid=(g, 1, 1), block=(256, 1, 1))
    compiled = tessel.compile(add, *args)  # traced and compiled once; compiled(*args) launches

A kernel is specialised on its arguments' signature: each tensor's element type, alignment,
index width and layout (values where static), each dynamic scalar's type, and each
compile-time value (Constexpr, or anything that is not a number or a tensor). A specialisation
is kept in memory and its cubin on disk (tessel.jit.cache), keyed by the generated source, the
target and the NVRTC version: the generated source spells the function's body, its closure's
values and the signature, so editing any of them changes the key.

A compiled @jit function replays the launches it recorded when every argument is a tensor with
a static layout or a compile-time value (the launch configuration then cannot change between
calls); otherwise it runs the host function each call, with the kernels already compiled.
"""

from __future__ import annotations

import hashlib
import inspect
import struct
import threading
import time

from . import dtypes as T
from .device import DeviceTensor
from .host import HostTensor, as_host_tensor, from_dlpack
from .ir import Builder, DSLError, Value, current_builder, tracing
from .prelude import prelude
from .rewrite import rewrite
from .tma import HostTmaDescriptor

_host = threading.local()


# ---- the arguments' signature -----------------------------------------------------------------------

def _is_torch_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "data_ptr") and hasattr(x, "stride")


_PLAIN = (int, float, bool, str, type(None))


def _direct_key(args):
    """(key, facts) for a direct @jit call whose arguments are all PyTorch tensors or plain values:
    the key holds what decides the compiled function and its replays (each tensor's dtype, shape,
    strides, device and address alignment, its address mod 16 deciding HostTensor.align; each
    value's type and value), facts each tensor's (shape, strides, address, device). None where an
    argument is anything else (a HostTensor, a stream), which then takes the checked path.
    NOTES: a PyTorch tensor passed to a @jit function is converted to a HostTensor and classified
    (its signature walks the layout) before the compiled function is found: about 40 us a call on
    an H100 host (2026-12-06, bench/dsl_bench.py). Calls that repeat an argument set find their
    replays from this key instead, and skip both."""
    tensor_type, strided = _torch_types()
    key, facts = [], []
    for a in args:
        if type(a) in _PLAIN:
            key.append((type(a), a))
        elif isinstance(a, tensor_type) and a.layout is strided:
            shape, stride, ptr, device = tuple(a.shape), a.stride(), a.data_ptr(), a.get_device()
            key.append((a.dtype, shape, stride, device, ptr & 15))
            facts.append((shape, stride, ptr, device))
        else:
            return None
    return tuple(key), facts


_torch_classes = None


def _torch_types():
    """(torch.Tensor, torch.strided), or (a class no argument is, None) while torch is not loaded."""
    global _torch_classes
    if _torch_classes is None:
        import sys
        torch = sys.modules.get("torch")
        if torch is None:
            return _NoTensor, None
        _torch_classes = (torch.Tensor, torch.strided)
    return _torch_classes


class _NoTensor:
    pass


def _is_stream(x) -> bool:
    return hasattr(x, "cuda_stream") and not _is_torch_tensor(x)


def classify(value, annotation):
    """(kind, signature part) of one kernel or @jit argument."""
    if annotation is T.Constexpr or annotation == "Constexpr" or annotation == "tessel.Constexpr":
        return "const", ("const", _const_key(value))
    if isinstance(value, HostTensor):
        return "tensor", value.signature()
    if isinstance(value, HostTmaDescriptor):
        return "tma", value.signature()
    if _is_stream(value):
        return "stream", ("stream",)
    if isinstance(value, T.Scalar):
        return "scalar", ("scalar", value.dtype.name)
    if isinstance(annotation, T.DType) and isinstance(value, (int, float, bool)):
        return "scalar", ("scalar", annotation.name)
    if isinstance(value, bool):
        return "scalar", ("scalar", "Boolean")
    if isinstance(value, int):
        return "scalar", ("scalar", "Int32" if -(1 << 31) <= value < (1 << 31) else "Int64")
    if isinstance(value, float):
        return "scalar", ("scalar", "Float32")
    return "const", ("const", _const_key(value))


def _const_key(v):
    try:
        hash(v)
        return (type(v).__qualname__, repr(v))
    except TypeError:
        return (type(v).__qualname__, repr(v))


def _scalar_dtype(value, annotation):
    if isinstance(value, T.Scalar):
        return value.dtype, value.value
    if isinstance(annotation, T.DType):
        return annotation, T.Scalar(value, annotation).value
    if isinstance(value, bool):
        return T.Boolean, value
    if isinstance(value, int):
        return (T.Int32 if -(1 << 31) <= value < (1 << 31) else T.Int64), value
    return T.Float32, float(value)


# ---- packing parameters -----------------------------------------------------------------------------

_PTR = ("Q", 8)


def _scalar_code(dtype: T.DType):
    if dtype is T.Float16:
        return "e", 2
    if dtype is T.BFloat16:
        return "H", 2
    if dtype.struct is None:
        raise DSLError(f"a {dtype.name} scalar cannot be a kernel parameter: pass it as Float32 and convert in the kernel")
    return dtype.struct, dtype.width


def _bf16_bits(x: float) -> int:
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return (u + 0x7FFF + ((u >> 16) & 1)) >> 16 & 0xFFFF


class ParamPlan:
    """The kernel's parameter list: C++ declarations and the struct layout that packs them."""

    def __init__(self):
        self.decls: list[str] = []
        self.fmt = "<"
        self.size = 0
        self.sources: list = []  # per packed value: (argument index, what) -- see values()
        self.offsets: list[int] = []  # each parameter's byte offset in the packed buffer

    def add(self, decl, code, align, source):
        pad = -self.size % align
        if pad:
            self.fmt += f"{pad}x"
        self.offsets.append(self.size + pad)
        self.fmt += code
        self.size += pad + struct.calcsize("<" + code)
        self.decls.append(decl)
        self.sources.append(source)

    def finish(self):
        self.struct = struct.Struct(self.fmt)


class _Binder:
    """A function's arguments in parameter order, as [(name, value, annotation)], defaults applied.
    A call that passes every parameter by position (the usual one) skips inspect's binding, which
    is a measurable share of a launch's host time."""

    def __init__(self, fn):
        self.qualname = fn.__qualname__
        self.signature = inspect.signature(fn)
        params = list(self.signature.parameters.values())
        self.positional = [(p.name, p.annotation) for p in params] if all(
            p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in params) else None

    def __call__(self, args, kwargs):
        if not kwargs and self.positional is not None and len(args) == len(self.positional):
            return [(name, v, ann) for (name, ann), v in zip(self.positional, args)]
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.qualname}: {e}") from None
        bound.apply_defaults()
        return [(p.name, bound.arguments[p.name], p.annotation) for p in self.signature.parameters.values()]


# ---- kernels ----------------------------------------------------------------------------------------

class CompiledKernel:
    """One specialisation of a kernel: its source, PTX, cubin and parameter plan."""

    def __init__(self, name, source, ptx, cubin, target, plan, smem, seconds, cache_hit):
        self.name, self.source, self.ptx, self.cubin, self.target = name, source, ptx, cubin, target
        self.plan, self.smem, self.seconds, self.cache_hit = plan, smem, seconds, cache_hit
        self._raw = None

    @property
    def raw(self):
        if self._raw is None:
            from .. import _core
            self._raw = _core.RawKernel(self.cubin, self.name, self.target, self.smem, self.plan.offsets)
        return self._raw

    def pack(self, args) -> bytes:
        return self.plan.struct.pack(*[_packed_value(args[index], what) for index, what in self.plan.sources])

    def __repr__(self):
        return f"<tessel CompiledKernel {self.name} for {self.target}>"


class KernelFunction:
    """A @tessel.kernel function. Calling it with arguments gives a launchable KernelCall."""

    def __init__(self, fn, launch_bounds=None):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        if launch_bounds is not None:
            lb = (launch_bounds,) if isinstance(launch_bounds, int) else tuple(launch_bounds)
            if not (1 <= len(lb) <= 2 and all(isinstance(x, int) and x >= 1 for x in lb) and lb[0] <= 1024):
                raise ValueError(f"{fn.__qualname__}: launch_bounds is (max threads per block <= 1024[, min blocks per SM]); "
                                 f"got {launch_bounds!r}")
            launch_bounds = lb
        self.launch_bounds = launch_bounds
        self._traceable = None
        self._bind = _Binder(fn)
        self._specs: dict = {}
        self._lock = threading.Lock()

    def __call__(self, *args, **kwargs):
        return KernelCall(self, args, kwargs)

    def specialize(self, args, kwargs, target) -> tuple:
        """(CompiledKernel, the argument values in parameter order) for these arguments."""
        bound = self._bind(args, kwargs)
        values = []
        for _name, v, _ann in bound:
            values.append(from_dlpack(v) if _is_torch_tensor(v) else v)
        sig = tuple(classify(v, ann)[1] for (_, _, ann), v in zip(bound, values)) + (target,)
        spec = self._specs.get(sig)
        if spec is None:
            with self._lock:
                spec = self._specs.get(sig) or self._compile(bound, values, target, sig)
                self._specs[sig] = spec
        return spec, values

    def _compile(self, bound, values, target, sig) -> CompiledKernel:
        start = time.perf_counter()
        if self._traceable is None:
            self._traceable = rewrite(self.fn)
        b = Builder(target)
        plan = ParamPlan()
        call_args = []
        for i, ((name, _v, ann), v) in enumerate(zip(bound, values)):
            kind, _ = classify(v, ann)
            call_args.append(_device_argument(plan, i, name, kind, v, ann))
            if kind == "tma":
                b.features.add("sm90")  # the descriptor's type
        plan.finish()
        with tracing(b):
            self._traceable(*call_args)
        body = "\n".join(b.source_lines())
        digest = hashlib.sha256(repr(sig).encode() + body.encode()).hexdigest()[:12]
        name = f"tessel_dsl_{self.fn.__name__}_{digest}"
        source = _kernel_source(name, plan, body, b, self.launch_bounds)
        return _build(name, source, target, plan, _smem_bytes(b), start)

    def __repr__(self):
        return f"<tessel kernel {self.__qualname__}>"


def _device_argument(plan, index, name, kind, value, annotation):
    from .tensor import leaves
    if kind == "const":
        return value
    ident = "".join(ch if ch.isalnum() else "_" for ch in name)
    if kind == "stream":
        raise DSLError(f"argument '{name}' of a kernel is a stream: pass it to .launch(stream=...), not to the kernel")
    if kind == "tma":
        from .hopper import TmaDescriptor
        pname = f"t_{ident}"
        plan.add(f"const __grid_constant__ tessel_dsl::TmaDesc {pname}", "128s", 64, (index, "tma"))
        return TmaDescriptor(pname, value.box, value.element_type, 3)
    if kind == "scalar":
        dtype, _ = _scalar_dtype(value, annotation)
        code, align = _scalar_code(dtype)
        pname = f"a_{ident}"
        plan.add(f"{dtype.cxx} {pname}" if dtype is not T.BFloat16 else f"tessel_dsl::bfloat16 {pname}", code, align,
                 (index, "bf16" if dtype is T.BFloat16 else "scalar"))
        return Value(pname, dtype, None, 1)
    t: HostTensor = value
    pname = f"p_{ident}"
    plan.add(f"{t.element_type.cxx}* __restrict__ {pname}", *_PTR, (index, "ptr"))
    itype = t.index_type
    flat = leaves(t.shape) + leaves(t.stride)
    nshape = len(leaves(t.shape))
    dyn = []
    for k, x in enumerate(flat):
        if t.dynamic and not (k >= nshape and k - nshape == t.leading):
            ename = f"{pname}_{'s' if k < nshape else 'd'}{k if k < nshape else k - nshape}"
            plan.add(f"{itype.cxx} {ename}", *_scalar_code(itype), (index, ("entry", k)))
            dyn.append(Value(ename, itype, None, 1))
        else:
            dyn.append(x)
    it = iter(dyn)
    shape = _rebuild(t.shape, it)
    stride = _rebuild(t.stride, it)
    return DeviceTensor(t.element_type, shape, stride, pname, 0, t.align, "gmem", itype)


def _rebuild(structure, it):
    if isinstance(structure, tuple):
        return tuple(_rebuild(s, it) for s in structure)
    return next(it)


def _smem_bytes(b) -> int:
    """Dynamic shared memory the kernel asks for: what it carved, and room to align the base."""
    return b.smem_bytes + (b.smem_align if b.smem_align > 16 else 0)


def _kernel_source(name, plan, body, b, launch_bounds=None) -> str:
    smem = ""
    if "smem" in b.features:
        if b.smem_align > 16:
            # NOTES: the dynamic shared memory base is 16-byte aligned only; a swizzled TMA buffer
            # needs 1024. The base moves up by an offset (not by rounding the address as an
            # integer), so the compiler still knows every pointer is in shared memory.
            a = b.smem_align
            smem = (f"  extern __shared__ __align__(16) unsigned char tessel_smem_raw[];\n"
                    f"  unsigned char* const tessel_smem = tessel_smem_raw + (({a}u - (static_cast<unsigned>("
                    f"__cvta_generic_to_shared(tessel_smem_raw)) & {a - 1}u)) & {a - 1}u);\n")
        else:
            smem = "  extern __shared__ __align__(16) unsigned char tessel_smem[];\n"
    params = ", ".join(plan.decls)
    bounds = f"__launch_bounds__({', '.join(map(str, launch_bounds))}) " if launch_bounds else ""
    return (prelude(b.features) + f'\nextern "C" __global__ void {bounds}{name}({params}) {{\n' + smem + body + "\n}\n")


_OPTIONS = ("-std=c++17",)


def _options(target, nvrtc_version) -> list:
    """NVRTC's options for a DSL kernel. NOTES: the generated source includes no header and uses
    no runtime API, so NVRTC 12.4 and later are told so (-minimal): it then skips its built-in
    runtime declarations, about a sixth of a small kernel's compile."""
    return [f"-arch={target}", *_OPTIONS, *(("-minimal",) if tuple(nvrtc_version) >= (12, 4) else ())]


def _build(name, source, target, plan, smem, start) -> CompiledKernel:
    from ..jit import cache, nvrtc
    options = _options(target, nvrtc.toolkit().version)
    key = cache.entry_key(kind="dsl", source=source, target=target, options=options, nvrtc=list(nvrtc.toolkit().version))

    def build():
        try:
            cubin, ptx, _log = nvrtc.compile_program(source, f"{name}.cu", options)
        except nvrtc.CompileError as e:
            raise _nvrtc_error(e) from None
        return cubin, {"kernel": name, "target": target, "ptx": ptx}

    cubin, meta, hit = cache.fetch(key, build)
    return CompiledKernel(name, source, meta.get("ptx", ""), cubin, target, plan, smem, time.perf_counter() - start, hit)


def _nvrtc_error(e):
    """NVRTC's first error, at the Python line the generated code's #line directive names."""
    import re
    m = re.search(r'^(.*?)\((\d+)\): (?:catastrophic )?error: (.*)$', e.log, re.M)
    if m and m.group(1).endswith(".py"):
        import linecache
        err = DSLError(f"the generated C++ does not compile: {m.group(3)} (NVRTC; the full log is in .log)", m.group(1),
                       int(m.group(2)), linecache.getline(m.group(1), int(m.group(2))))
    else:
        err = DSLError(f"the generated C++ does not compile (NVRTC): {e.log.splitlines()[0] if e.log else e}")
    err.log, err.source = e.log, e.source
    return err


# ---- launching --------------------------------------------------------------------------------------

def _dims(x, what):
    if isinstance(x, Value):
        raise DSLError(f"the launch's {what} is a dynamic device value: launch dimensions are host integers")
    if isinstance(x, int):
        x = (x,)
    try:
        d = tuple(int(v) for v in x)
    except (TypeError, ValueError):
        raise TypeError(f"{what} is a tuple of up to three integers; got {x!r}") from None
    if not 1 <= len(d) <= 3:
        raise ValueError(f"{what} {x!r}: one to three dimensions")
    d = d + (1,) * (3 - len(d))
    if any(v < 1 for v in d):
        raise ValueError(f"{what} {d}: every dimension must be at least 1")
    return d


class KernelCall:
    """A kernel with its arguments; .launch(grid=, block=, smem=, stream=, cluster=) runs it."""

    def __init__(self, kernel: KernelFunction, args, kwargs):
        self.kernel, self.args, self.kwargs = kernel, args, kwargs

    def launch(self, grid, block, smem: int = 0, stream=None, cluster=(1, 1, 1)):
        grid, block, cluster = _dims(grid, "grid"), _dims(block, "block"), _dims(cluster, "cluster")
        if block[0] * block[1] * block[2] > 1024:
            raise ValueError(f"block {block}: at most 1024 threads per block")
        ctx = getattr(_host, "ctx", None)
        target = ctx.target if ctx is not None else None
        tensors = [a.tensor if isinstance(a, HostTmaDescriptor) else a for a in list(self.args) + list(self.kwargs.values())
                   if isinstance(a, (HostTensor, HostTmaDescriptor)) or _is_torch_tensor(a)]
        if target is None:
            target = _target_of(tensors)
        spec, values = self.kernel.specialize(self.args, self.kwargs, target)
        record = Launch(spec, values, grid, block, int(smem), stream, cluster)
        if ctx is not None:
            ctx.launches.append(record)
            if not ctx.execute:
                return
        record.run(values)


class Launch:
    def __init__(self, spec, values, grid, block, smem, stream, cluster):
        self.spec, self.values, self.grid, self.block, self.smem, self.stream, self.cluster = (
            spec, values, grid, block, smem, stream, cluster)

    def run(self, values, stream=None):
        tensors = [v.tensor if isinstance(v, HostTmaDescriptor) else v for v in values
                   if isinstance(v, (HostTensor, HostTmaDescriptor))]
        if any(t.ptr is None for t in tensors):
            raise ValueError(f"{self.spec.name}: a fake_tensor has no memory: compile with it, then call the compiled "
                             "function with real tensors")
        device = next((t.device for t in tensors if t.device is not None and t.device >= 0), None)
        if device is None:
            raise ValueError(f"{self.spec.name}: no argument is a CUDA tensor (kernels read device memory)")
        s = _stream_handle(self.stream if stream is None else stream, tensors, device)
        g, b, c = self.grid, self.block, self.cluster
        self.spec.raw.launch(g[0], g[1], g[2], b[0], b[1], b[2], self.smem, s, device, self.spec.pack(values), c[0], c[1], c[2])


def _stream_handle(stream, tensors, device) -> int:
    if stream is None:
        import sys
        torch = sys.modules.get("torch")
        if torch is not None and any(_is_torch_tensor(t.owner) for t in tensors):
            return torch._C._cuda_getCurrentRawStream(device)
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "cuda_stream"):
        return int(stream.cuda_stream)
    raise TypeError(f"stream is a torch.cuda.Stream or a CUstream handle (int); got {type(stream).__name__}")


def _target_of(tensors) -> str:
    from ..jit.compiler import device_target
    devices = [from_dlpack(t).device for t in tensors]
    devices = [d for d in devices if d is not None and d >= 0]
    if not devices:
        raise DSLError("no argument is a CUDA tensor to choose a target from: pass target='sm_90a' (or 'sm_80') to "
                       "tessel.compile")
    return device_target(devices[0])


# ---- host functions ---------------------------------------------------------------------------------

class _HostContext:
    def __init__(self, target, execute):
        self.target, self.execute, self.launches = target, execute, []

    def __enter__(self):
        self.prev = getattr(_host, "ctx", None)
        _host.ctx = self
        return self

    def __exit__(self, *exc):
        _host.ctx = self.prev


class JitFunction:
    """A @tessel.jit host function. Called directly, it compiles once per argument signature
    (kept in memory) and runs the compiled function."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__, self.__qualname__, self.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        self._bind = _Binder(fn)
        self._compiled: dict = {}
        self._traceable = None
        self._direct: dict = {}  # _direct_key(args) -> (replays, [(index, tessel dtype, align, leading)])

    def _args(self, args, kwargs):
        bound = self._bind(args, kwargs)
        values = [as_host_tensor(v) if _is_torch_tensor(v) else v for _, v, _ in bound]
        return values, [ann for _, _, ann in bound]

    def __call__(self, *args, **kwargs):
        if current_builder() is not None:
            # Called while a kernel is traced: a device helper, inlined with its own control-flow
            # rewrite (the CuTe DSL's @cute.jit functions called from a kernel).
            if self._traceable is None:
                self._traceable = rewrite(self.fn)
            return self._traceable(*args, **kwargs)
        found = None if kwargs else _direct_key(args)
        direct = found and found[0]
        if direct is not None:
            hit = self._direct.get(direct)
            if hit is not None:
                replays, tensors = hit
                values = list(args)
                for (i, dtype, align, leading), (shape, stride, ptr, device) in zip(tensors, found[1]):
                    values[i] = HostTensor(dtype, shape, stride, ptr, device, align, True, args[i], leading=leading)
                for r in replays:
                    r.run(values)
                return None
        values, anns = self._args(args, kwargs)
        # Keyed by the device too: a function compiled for another target (tessel.compile(...,
        # target="sm_80") on an sm_90 machine) is not what this device runs.
        device = next((v.device for v in values if isinstance(v, HostTensor)), None)
        key = (tuple(classify(v, a)[1] for v, a in zip(values, anns)), device)
        compiled = self._compiled.get(key)
        if compiled is None:
            tensors = [v for v in values if isinstance(v, HostTensor)]
            compiled = self._compiled[key] = CompiledFunction(self, values, anns, _target_of(tensors) if tensors else None)
        result = compiled._call_values(values)
        if direct is not None and result is None and compiled.replay:
            replays = compiled._replays.get(compiled._key(values))
            tensors = [(i, v.element_type, v.align, v.leading) for i, v in enumerate(values)
                       if isinstance(v, HostTensor) and v.owner is args[i]]
            if replays is not None and len(tensors) == len(found[1]):  # every tensor argument, in order
                if len(self._direct) >= REPLAY_SETS:
                    del self._direct[next(iter(self._direct))]
                self._direct[direct] = (replays, tensors)
        return result

    def __repr__(self):
        return f"<tessel jit function {self.__qualname__}>"


# A compiled function remembers the launches of this many distinct argument sets (dynamic layouts'
# extents and strides, scalar values); the oldest is forgotten first.
REPLAY_SETS = 64

_REPLAYABLE = frozenset(("const", "tensor", "scalar", "stream"))


class CompiledFunction:
    """A @jit function traced and compiled for one argument signature and target.

    A call replays the launches the host function made, with the new tensors' addresses: the
    Python host function runs once per distinct set of what it can read besides addresses
    (dynamic layouts' extents and strides, scalar values; static layouts and Constexpr values
    are fixed by the signature), and later calls with the same set only pack addresses and
    launch. So a host function must be a function of its arguments: one that reads anything else
    (a global, the clock) or returns a value runs each call, which it does also where a kernel
    argument is not cut from a @jit argument."""

    def __init__(self, jit: JitFunction, values, annotations, target):
        if target is None:
            raise DSLError("no argument is a CUDA tensor to choose a target from: pass target='sm_90a' (or 'sm_80')")
        self.jit, self.target = jit, target
        self._annotations = annotations
        self._like = list(values)
        classes = [classify(v, a) for v, a in zip(values, annotations)]
        self._sig = tuple(part for _, part in classes)
        start = time.perf_counter()
        with _HostContext(target, execute=False) as ctx:
            jit.fn(*values)
        self.launches = ctx.launches
        self.seconds = time.perf_counter() - start
        self._tensor_args = [i for i, (kind, _) in enumerate(classes) if kind == "tensor"]
        self._consts = [(i, values[i]) for i, (kind, _) in enumerate(classes) if kind == "const"]
        self._scalars = [i for i, (kind, _) in enumerate(classes) if kind == "scalar"]
        self._dynamic = [i for i in self._tensor_args if values[i].dynamic]
        self._keyed = bool(self._dynamic or self._scalars)
        self._replays: dict = {}  # replay key (see _key) -> [_Replay], oldest first
        self._misses = 0  # calls whose argument set was not remembered
        self.replay = all(kind in _REPLAYABLE for kind, _ in classes) and self._remember(values, self.launches)

    def _key(self, values) -> tuple:
        """What the host function may read besides addresses and the signature: the device (its
        SM count, say), dynamic layouts' extents and strides, scalar values."""
        device = values[self._tensor_args[0]].device if self._tensor_args else None
        if not self._keyed:
            return device
        return (device, *[values[i].flat for i in self._dynamic], *[_scalar_value(values[i]) for i in self._scalars])

    def _remember(self, values, launches) -> bool:
        """Keeps `launches` (made from `values`) for replay; False where one cannot be replayed."""
        if not all(_mappable(rec, values) for rec in launches):
            return False
        while len(self._replays) >= REPLAY_SETS:
            del self._replays[next(iter(self._replays))]
        self._replays[self._key(values)] = [_Replay(rec, *_mapping(rec, values)) for rec in launches]
        return True

    @property
    def kernels(self) -> list:
        return [rec.spec for rec in self.launches]

    @property
    def ptx(self) -> str:
        return "\n".join(dict.fromkeys(k.ptx for k in self.kernels))

    @property
    def cubin(self) -> bytes:
        cubins = list(dict.fromkeys(k.cubin for k in self.kernels))
        if len(cubins) != 1:
            raise ValueError(f"{self.jit.__qualname__} launches {len(cubins)} kernels: read .kernels[i].cubin")
        return cubins[0]

    @property
    def source(self) -> str:
        return "\n".join(dict.fromkeys(k.source for k in self.kernels))

    def __call__(self, *args, **kwargs):
        if self.replay and not kwargs and len(args) == len(self._like):
            # The fast path: tessel tensors of the compiled signature, a remembered argument set.
            replays = self._replays_for(args)
            if replays is not None:
                for r in replays:
                    r.run(args)
                return None
        values = self._bind_call(args, kwargs) if kwargs or len(args) != len(self._like) else list(args)
        return self._call_values(values)

    def _bind_call(self, args, kwargs) -> list:
        """The arguments of a call that does not pass every parameter by position, in parameter
        order: a Constexpr left out takes the value it was compiled with (the CuTe DSL's compiled
        functions are called with their run-time arguments), any other parameter its default."""
        signature = self.jit._bind.signature
        try:
            given = signature.bind_partial(*args, **kwargs).arguments
        except TypeError as e:
            raise TypeError(f"{self.jit.__qualname__}: {e}") from None
        values = []
        for i, param in enumerate(signature.parameters.values()):
            if param.name in given:
                v = given[param.name]
            elif self._sig[i][0] == "const":
                v = self._like[i]
            elif param.default is not param.empty:
                v = param.default
            else:
                raise TypeError(f"{self.jit.__qualname__}: missing the argument {param.name!r}")
            values.append(as_host_tensor(v) if _is_torch_tensor(v) else v)
        return values

    def _replays_for(self, args):
        """The remembered launches for these arguments, or None (then the checked path runs)."""
        sig = self._sig
        for i in self._tensor_args:
            v = args[i]
            if v.__class__ is not HostTensor or v.signature() != sig[i]:
                return None
        if not (self._keyed or self._consts):  # static layouts only: the device is the key
            return self._replays.get(args[self._tensor_args[0]].device if self._tensor_args else None)
        for i, like in self._consts:
            if args[i] is not like:
                return None
        for i in self._scalars:
            if classify(args[i], self._annotations[i])[1] != sig[i]:
                return None
        return self._replays.get(self._key(args))

    def _call_values(self, values):
        for i, (v, like, part, ann) in enumerate(zip(values, self._like, self._sig, self._annotations)):
            if isinstance(like, HostTensor):
                if not isinstance(v, HostTensor):
                    v = values[i] = as_host_tensor(v, like)
                if v.signature() != part:
                    raise ValueError(f"{self.jit.__qualname__}: argument {i} is a {v.describe()}; this function was compiled "
                                     f"for a {like.describe()}: call the @jit function itself (it compiles per signature) or "
                                     "compile again")
            elif v is not like and classify(v, ann)[1] != part and not _stream_or_none(v, like):
                got = classify(v, ann)[1]
                raise ValueError(f"{self.jit.__qualname__}: argument {i} is {_describe_part(got, v)}; this function was "
                                 f"compiled for {_describe_part(part, like)}: call the @jit function itself (it compiles "
                                 "per signature) or compile again")
        if self.replay:
            replays = self._replays.get(self._key(values))
            if replays is not None:
                for r in replays:
                    r.run(values)
                return None
        with _HostContext(self.target, execute=True) as ctx:
            result = self.jit.fn(*values)
        self._misses += 1
        # NOTES: argument sets that never repeat (a scalar that changes every call) would pay for
        # building replays they never use: past twice the sets kept, misses stop being remembered.
        if self.replay and result is None and self._misses <= 2 * REPLAY_SETS:
            self._remember(values, ctx.launches)
        return result

    def __repr__(self):
        return f"<tessel compiled {self.jit.__qualname__} for {self.target}: {len(self.launches)} launch(es)>"


def _describe_part(part, value) -> str:
    """A signature part in words, for the error of a call that does not match its compiled form."""
    if part[0] == "const":
        return f"the Constexpr {value!r}"
    if part[0] == "scalar":
        return f"a {part[1]} scalar"
    return f"a {part[0]}"


def _stream_or_none(a, b) -> bool:
    """A stream argument may be None (PyTorch's current stream) in one call and a stream in another."""
    return (a is None or _is_stream(a)) and (b is None or _is_stream(b))


def _scalar_value(v):
    return v.value if isinstance(v, T.Scalar) else v


# Replay: each kernel argument is a @jit argument or a view cut from one.
def _mappable(rec, values) -> bool:
    roots = [v for v in values if isinstance(v, HostTensor)]
    for v in rec.values:
        v = v.tensor if isinstance(v, HostTmaDescriptor) else v
        if isinstance(v, HostTensor) and not any(v.root is r for r in roots):
            return False
    if rec.stream is not None and not any(rec.stream is v for v in values) and not isinstance(rec.stream, int):
        return False
    return True


def _mapping(rec, values):
    """(per kernel parameter source: ("view", argument index, view) | ("tma", argument index,
    descriptor) | ("same", value); the stream: ("arg", index) | ("same", stream))."""
    out = []
    for v in rec.values:
        if isinstance(v, HostTensor):
            out.append(("view", next(i for i, r in enumerate(values) if r is v.root), v))
        elif isinstance(v, HostTmaDescriptor):
            out.append(("tma", next(i for i, r in enumerate(values) if r is v.tensor.root), v))
        else:
            out.append(("same", v))
    stream = next((("arg", i) for i, a in enumerate(values) if rec.stream is a), ("same", rec.stream))
    return out, stream


_ADDRESS = struct.Struct("<Q")


class _ViewOf:
    """Where a kernel's tensor lies in a @jit argument, without the argument (a replay must not
    keep the tensors of the call it was recorded from alive): its layout, alignment and offset."""

    def __init__(self, view: HostTensor):
        self.is_root = view is view.root
        self.layout = (view.element_type, view.shape, view.stride)
        self.align, self.dynamic, self.offset = view.align, view.dynamic, view.offset

    def over(self, root: HostTensor) -> HostTensor:
        if self.is_root:
            return root
        dtype, shape, stride = self.layout
        return HostTensor(dtype, shape, stride, root.ptr, root.device, self.align, self.dynamic, root.owner, root, self.offset)


class _Replay:
    """One recorded launch of a compiled function, run again on new arguments with the least host
    work (a compiled call's overhead is what this is for): the parameter bytes that do not depend
    on the arguments' addresses are packed once, and a call writes the new tensors' addresses
    (and TMA descriptors) into a copy of them."""

    def __init__(self, rec, mapping, stream):
        spec = rec.spec
        self.spec = spec
        self.ptrs, self.tmas = [], []  # (byte offset, root argument, byte delta | (view, box, swizzle, cache))
        vals = []
        for (index, what), offset in zip(spec.plan.sources, spec.plan.offsets):
            m = mapping[index]
            if what == "ptr" and m[0] == "view":
                view = m[2]
                self.ptrs.append((offset, m[1], (view.offset - view.root.offset) * view.element_type.width))
                vals.append(0)
            elif what == "tma":
                desc = m[2]
                self.tmas.append((offset, m[1], (_ViewOf(desc.tensor), desc.box, desc.swizzle, desc._cache)))
                vals.append(b"")
            else:
                vals.append(_packed_value(rec.values[index], what))
        self.template = spec.plan.struct.pack(*vals)
        roots = [m[1] for m in mapping if m[0] in ("view", "tma")]
        self.device_arg = roots[0] if roots else None
        self.stream = stream
        self.torch_owned = any(_is_torch_tensor(v.root.owner) for v in rec.values if isinstance(v, HostTensor)) or any(
            _is_torch_tensor(v.tensor.root.owner) for v in rec.values if isinstance(v, HostTmaDescriptor))
        self.geometry = (*rec.grid, *rec.block, rec.smem)
        self.cluster = rec.cluster
        self._launch = None  # spec.raw.replay(...), made at the first run (loading the cubin needs the GPU)

    def run(self, values):
        try:
            pointers = [values[i].data_ptr + delta for _, i, delta in self.ptrs]
        except TypeError:  # None + delta: a fake_tensor's address
            raise ValueError(f"{self.spec.name}: a fake_tensor has no memory: compile with it, then call the compiled "
                             "function with real tensors") from None
        device = values[self.device_arg].device if self.device_arg is not None else None
        if device is None or device < 0:
            raise ValueError(f"{self.spec.name}: no argument is a CUDA tensor (kernels read device memory)")
        kind, what = self.stream
        stream = values[what] if kind == "arg" else what
        if stream is None:
            s = _current_torch_stream(device) if self.torch_owned else 0
        else:
            s = _stream_handle(stream, [], device)
        if not self.tmas:
            # The launcher keeps the bytes and geometry; a call passes the pointers alone.
            if self._launch is None:
                self._launch = self.spec.raw.replay(self.template, [offset for offset, _, _ in self.ptrs], *self.geometry,
                                                    *self.cluster)
            self._launch(s, device, *pointers)
            return
        buf = bytearray(self.template)
        for (offset, _, _), p in zip(self.ptrs, pointers):
            _ADDRESS.pack_into(buf, offset, p)
        for offset, i, (view, box, swizzle, cache) in self.tmas:
            buf[offset:offset + 128] = HostTmaDescriptor(view.over(values[i]), box, swizzle, cache).encode()
        g, c = self.geometry, self.cluster
        self.spec.raw.launch(g[0], g[1], g[2], g[3], g[4], g[5], g[6], s, device, bytes(buf), c[0], c[1], c[2])

_torch_stream = None


def _current_torch_stream(device):
    global _torch_stream
    if _torch_stream is None:
        import sys
        _torch_stream = sys.modules["torch"]._C._cuda_getCurrentRawStream
    return _torch_stream(device)


def _packed_value(a, what):
    """One parameter's value as CompiledKernel.pack packs it."""
    if what == "ptr":
        return a.data_ptr
    if what == "scalar":
        return a.value if isinstance(a, T.Scalar) else a
    if what == "bf16":
        return _bf16_bits(a.value if isinstance(a, T.Scalar) else a)
    if what == "tma":
        return a.encode()
    return a.flat[what[1]]  # ("entry", k): the k-th leaf of shape+stride


def compile(fn, *args, target=None, **kwargs):  # noqa: A001 (tessel.compile)
    """Trace and compile a @jit function (or a @kernel, launched by hand later) for these
    arguments. `target`: 'sm_90a', 'sm_80', ...; needed when no argument is a CUDA tensor."""
    from ..jit.compiler import normalize_target
    if isinstance(fn, JitFunction):
        values, anns = fn._args(args, kwargs)
        tensors = [v for v in values if isinstance(v, HostTensor)]
        t = normalize_target(target) if target is not None else _target_of([x for x in tensors if x.device is not None])
        return CompiledFunction(fn, values, anns, t)
    raise TypeError(f"tessel.compile takes a @tessel.jit function (or a GemmConfig); got {type(fn).__name__}")


def kernel(fn=None, *, launch_bounds=None):
    """@tessel.kernel: a device function traced into a CUDA kernel per argument signature.
    `launch_bounds`: (max threads per block[, min blocks per SM]), CUDA's __launch_bounds__, which
    sets the register budget ptxas compiles for (a 384-thread warp-specialized kernel needs it)."""
    if fn is None:
        return lambda f: KernelFunction(f, launch_bounds)
    return KernelFunction(fn, launch_bounds)


def jit(fn=None, **options):
    """@tessel.jit: a host function that launches kernels; see tessel.compile."""
    if fn is None:
        return lambda f: JitFunction(f)
    return JitFunction(fn)
