"""tessel.distributed: the plan binding (no GPU); the executor's exchanges, slices and reduction in
CPU processes over gloo (PyTorch needed, no GPU); and the overlapped tensor-parallel GEMMs on
every GPU of the machine (2 or more). Both groups run tp_worker.py under torchrun."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tessel import _core


def test_plan_is_the_headers_example():
    p = _core.tp_plan("all_gather_gemm", 2, 1, [3, 5], 2)
    assert p["chunks"] == 2 and p["offset"] == 3 and p["total_rows"] == 8
    assert p["exchanges"] == [(0, 3, 3, 0, 0, 2, -1), (0, 6, 2, 0, 2, 1, -1)]
    assert p["gemms"] == [(3, 5, -1, -1), (0, 2, 0, -1), (2, 1, 1, -1)]


def test_reduce_scatter_plan_sends_what_its_gemms_wrote():
    p = _core.tp_plan("gemm_reduce_scatter", 3, 0, [4, 0, 6], 1)
    gemms = p["gemms"]
    for i, e in enumerate(p["exchanges"]):
        if e[2]:  # rows sent: a GEMM wrote them, and feeds this exchange
            begin, count, _, feeds = gemms[e[6]]
            assert (begin, count, feeds) == (e[1], e[2], i)
    assert gemms[-1][:2] == (0, 4) and gemms[-1][3] == -1  # its own rows, last
    assert p["chunks"] == 1


@pytest.mark.parametrize("args, message", [
    (("all_gather", 2, 0, [1, 1], 0), "pass 'all_gather_gemm' or 'gemm_reduce_scatter'"),
    (("all_gather_gemm", 2, 2, [1, 1], 0), "rank 2 is outside the group of 2 ranks"),
    (("all_gather_gemm", 2, 0, [1], 0), "rows_per_rank has 1 entries for 2 ranks"),
    (("gemm_reduce_scatter", 2, 0, [1, -3], 0), "rows_per_rank[1] is -3"),
    (("gemm_reduce_scatter", 2, 0, [1, 1], -1), "chunks is -1"),
    (("all_gather_gemm", 2, 0, [1, 1 << 40], 0), "token counts are 0 to 2"),
])
def test_plan_refusals_say_what_is_wrong(args, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _core.tp_plan(*args)


def _torchrun(ranks: int, *worker_args: str) -> None:
    """tp_worker.py in `ranks` processes (PyTorch's launcher, this interpreter); fails with its output."""
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", PYTHONPATH=os.pathsep.join(sys.path))
    worker = Path(__file__).with_name("tp_worker.py")
    r = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranks}", str(worker),
                        *worker_args], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]


@pytest.mark.parametrize("ranks", [1, 3])
def test_executor_over_gloo_on_cpu(torch_cpu, ranks):
    """The schedule as tessel.distributed runs it (batched isend/irecv, the receive slots, the FP8
    scales per rank, the reduction), with the GEMMs in float64 on the host: catches what the C++
    simulation of the plan cannot, the Python executor's own slicing and waiting."""
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("this PyTorch has no gloo backend")
    _torchrun(ranks, "--cpu")


def test_tensor_parallel_gemms_on_every_gpu(hopper):
    torch = hopper
    gpus = torch.cuda.device_count()
    if gpus < 2:
        pytest.skip(f"tensor-parallel exchanges need 2 or more GPUs; this machine has {gpus}")
    _torchrun(gpus)


@pytest.mark.parametrize("case, error, words", [
    ("3-d", ValueError, "must be 2-D"),
    ("dtypes", TypeError, "must share one of float16"),
    ("features", ValueError, "x has 64 features and weight takes 32"),
    ("fp8 without scales", ValueError, "take scale_a and scale_b"),
    ("scale of two", ValueError, "scale_a must be a one-element float32 tensor"),
    ("cpu", ValueError, "this rank's CUDA device"),
])
def test_refusals_come_before_any_communication(torch_cpu, case, error, words):
    """Bad operands are refused on the calling rank with a sentence, before the group is asked
    anything (so no rank waits on a collective the others never join)."""
    import tessel.distributed as tdist
    torch = torch_cpu
    x, w = torch.zeros(8, 64, dtype=torch.bfloat16), torch.zeros(16, 64, dtype=torch.bfloat16)
    x8, w8, one = x.to(torch.float8_e4m3fn), w.to(torch.float8_e4m3fn), torch.ones(1)
    calls = {
        "3-d": lambda: tdist.all_gather_gemm(x[None], w),
        "dtypes": lambda: tdist.gemm_reduce_scatter(x, w.half()),
        "features": lambda: tdist.all_gather_gemm(x, w[:, :32]),
        "fp8 without scales": lambda: tdist.all_gather_gemm(x8, w8),
        "scale of two": lambda: tdist.all_gather_gemm(x8, w8, scale_a=torch.ones(2), scale_b=one),
        "cpu": lambda: tdist.gemm_reduce_scatter(x, w),
    }
    with pytest.raises(error, match=words):
        calls[case]()
