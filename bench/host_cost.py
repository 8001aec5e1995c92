"""The host cost of a DSL launch that tessel itself adds, without a GPU: the Python replay and the
C++ launcher, timed with a do-nothing CUDA driver (bench/fake_libcuda.c) in place of libcuda.so.1.
On a device the driver's cuLaunchKernel comes on top (bench/dsl_bench.py measures the whole).

    python3 bench/host_cost.py            # builds the fake driver with cc, then times in a child process
"""

import os
import statistics
import subprocess
import sys
import tempfile
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child():
    import ctypes
    sys.path.insert(0, str(HERE.parent / "examples" / "python"))
    import tessel
    from tessel.dsl.host import HostTensor
    from elementwise_add import add
    driver = ctypes.CDLL("libcuda.so.1")
    if not hasattr(driver, "fake_launches"):
        sys.exit("host_cost: the real CUDA driver was loaded, not the fake one")
    static = [HostTensor(tessel.Float16, (256, 256), (256, 1), 0x7F0000000000 + i * (1 << 24), 0, 16) for i in range(3)]
    dynamic = [HostTensor(tessel.Float16, (256, 256), (256, 1), 0x7E0000000000 + i * (1 << 24), 0, 16).mark_layout_dynamic()
               for i in range(3)]
    compiled = tessel.compile(add, *static, target="sm_90a")  # the disk cache holds it (the parent compiled it)
    compiled_dyn = tessel.compile(add, *dynamic, target="sm_90a")
    raw, params = compiled.kernels[0].raw, compiled.kernels[0].pack(static)
    calls = {"compiled call, static layouts": lambda: compiled(*static),
             "compiled call, dynamic layouts": lambda: compiled_dyn(*dynamic),
             "RawKernel.launch alone (C++ and nanobind)": lambda: raw.launch(256, 1, 1, 256, 1, 1, 0, 0, 0, params, 1, 1, 1)}
    replay = compiled._replays_for(static)[0]
    offsets = [offset for offset, _, _ in replay.ptrs]
    again = raw.replay(params, offsets, 256, 1, 1, 256, 1, 1, 0)
    pointers = [t.data_ptr for t in static]
    calls["RawKernel.replay's launch alone (the compiled call's launcher)"] = lambda: again(0, 0, *pointers)
    for name, call in calls.items():
        call()
        samples = timeit.repeat(call, number=20000, repeat=15)
        print(f"{name}: median {statistics.median(samples) / 20000 * 1e6:.2f} us")
    print(f"launches counted by the fake driver: {driver.fake_launches()}")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return _child()
    sys.path.insert(0, str(HERE.parent / "examples" / "python"))
    import tessel
    from tessel.dsl.host import HostTensor
    from elementwise_add import add
    # Compile here, with the real toolchain (NVRTC asks the driver for things the fake one lacks).
    for dyn in (False, True):
        ts = [HostTensor(tessel.Float16, (256, 256), (256, 1), 0x7F0000000000, 0, 16) for _ in range(3)]
        tessel.compile(add, *[t.mark_layout_dynamic() if dyn else t for t in ts], target="sm_90a")
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / "libcuda.so.1"
        subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", str(lib), str(HERE / "fake_libcuda.c")],
                       check=True)
        env = dict(os.environ, LD_LIBRARY_PATH=f"{tmp}:{os.environ.get('LD_LIBRARY_PATH', '')}")
        sys.exit(subprocess.run([sys.executable, __file__, "--child"], env=env).returncode)


if __name__ == "__main__":
    main()
