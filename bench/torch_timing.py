"""What bench/python_gemm.py and bench/front_door.py share: the timing loop (events around each
launch, the GPU held up first so that the events time the kernels) and the check of a 16-bit D
against float64 within include/tessel/verify/tolerance.hpp's budget."""

import statistics

import torch

from tessel import _core

HOLD_CYCLES = 20_000_000  # about 10 ms at 2 GHz: longer than enqueueing a round


def events_time(run, sets, reps, hold_cycles=HOLD_CYCLES):
    """Milliseconds of each of `reps` calls of run(A, B, D) from Python, call i on sets[i % len]."""
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(reps + 1)]
    torch.cuda._sleep(hold_cycles)
    ev[0].record()
    for i in range(reps):
        run(*sets[i % len(sets)])
        ev[i + 1].record()
    ev[-1].synchronize()
    return [ev[i].elapsed_time(ev[i + 1]) for i in range(reps)]


def cpp_time(kernel, sets, reps, hold_cycles=HOLD_CYCLES, transpose_d=False):
    """The same for `kernel` launched from C++ (tessel._core.time_launches: no Python between);
    transpose_d: on D^T's problem, as the dispatcher runs decode shapes."""
    torch.cuda._sleep(hold_cycles)
    return _core.time_launches(kernel, sets, reps, torch.cuda.current_stream().cuda_stream, transpose_d)


def medians_in_turns(runs, sets, reps, rounds):
    """{label: median milliseconds} of each run(*set) of the dict `runs`, the providers taking
    turns round by round (each warmed on sets[0] before its turn), so that a clock that drifts
    over the rounds drifts under all of them alike. Round r starts with provider r (mod their
    number): no provider always runs first, on the coolest chip, or last, on the hottest."""
    times = {label: [] for label in runs}
    order = list(runs)
    for r in range(rounds):
        for label in order[r % len(order):] + order[:r % len(order)]:
            runs[label](*sets[0])
            times[label] += events_time(runs[label], sets, reps)
    return {label: statistics.median(v) for label, v in times.items()}


def interleaved_times(runs, sets, reps, rounds, hold_cycles=HOLD_CYCLES):
    """{label: [milliseconds]} of the providers of the dict `runs` taken call by call: each round
    holds the GPU, then in step i < reps calls every provider once, the order rotated by i, with
    events between the calls; call c of the whole run reads sets[c % len(sets)], so with two sets
    or more no call finds its operands in L2 from the call before. Each provider's j-th time shares
    its moment (clock, temperature) with the others' j-th: pair them (paired_ratio) to compare."""
    labels = list(runs)
    for label in labels:
        runs[label](*sets[0])
    times = {label: [] for label in labels}
    call = 0
    for _ in range(rounds):
        order = [labels[(i + p) % len(labels)] for i in range(reps) for p in range(len(labels))]
        ev = [torch.cuda.Event(enable_timing=True) for _ in range(len(order) + 1)]
        torch.cuda._sleep(hold_cycles)
        ev[0].record()
        for j, label in enumerate(order):
            runs[label](*sets[call % len(sets)])
            call += 1
            ev[j + 1].record()
        ev[-1].synchronize()
        for j, label in enumerate(order):
            times[label].append(ev[j].elapsed_time(ev[j + 1]))
    return times


def paired_ratio(times, anchor, label):
    """The median over steps of anchor's time / label's time in the same step (interleaved_times):
    label's speed relative to anchor, > 1 when label is faster."""
    return statistics.median(a / b for a, b in zip(times[anchor], times[label]))


def write_report(lines, out):
    """The benchmark's lines printed together, and written to `out` when given."""
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text)


def worst_error_share(A, B, D, relative=2.0**-8, act=None):
    """The worst element's error as a share of its budget (<= 1 passes; inf where D holds a NaN):
    float32 accumulation over K, one rounding to D's type (`relative`), and for a fused
    activation (act: a torch function applied to the float64 reference) its slope and roundings."""
    ref = A.double() @ B.double()
    ab = A.double().abs() @ B.double().abs()
    eps = 2.0**-23
    budget = 8 * A.shape[1]**0.5 * eps * ab + eps * ab + relative * ref.abs() + 2.0**-126
    if act is not None:
        ref = act(ref)  # relu, gelu and silu have slopes below 1.2
        budget = budget * 1.2 + relative * ref.abs()
    if torch.isnan(D).any().item():
        return float("inf")
    return ((D.double() - ref).abs() / budget).max().item()
