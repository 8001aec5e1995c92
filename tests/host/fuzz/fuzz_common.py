"""Running a command-line tool under limits, for the fuzz tests (Python 3 standard library only).

Generic: nothing here knows about a particular tool. A fuzz script builds argument lists, calls
`run_limited` for each, and passes the outcome to `Failures.check`, which records every way a run
can end badly whatever the tool:

  - killed by a signal (SIGSEGV, SIGABRT from an uncaught C++ exception, ...);
  - past its time limit (a hang, or work that is not bounded);
  - "terminate called", "bad_alloc" or "what():" in its output (an exception that escaped);
  - a nonzero exit with nothing on stderr, or (by default) more than one line on stderr.

`Failures.report()` prints each failure with the command that reproduces it and returns the
process exit status for the script.
"""

import os
import resource
import shlex
import signal
import subprocess
import time

# The defaults the fuzz tests run each child under: generous for any valid input of theirs,
# small enough that an unbounded allocation or loop is caught quickly.
DEFAULT_MEMORY_BYTES = 2 << 30
DEFAULT_TIMEOUT_S = 10.0

# Text that only appears when a C++ exception escaped or the runtime gave up.
CRASH_MARKERS = ("terminate called", "bad_alloc", "what():")


class Outcome:
    """What one run of a child did."""

    def __init__(self, argv, returncode, stdout, stderr, timed_out, seconds):
        self.argv = argv
        self.returncode = returncode  # negative: killed by that signal; None: timed out
        self.stdout = stdout
        self.stderr = stderr
        self.timed_out = timed_out
        self.seconds = seconds

    def text(self):
        return self.stdout + self.stderr

    def command(self):
        return " ".join(shlex.quote(a) for a in self.argv)


def limit_memory(memory_bytes):
    """A preexec_fn that caps the child's address space and turns off core files."""

    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files from a crash

    return apply


def run_limited(argv, stdin_bytes=None, timeout_s=DEFAULT_TIMEOUT_S,
                memory_bytes=DEFAULT_MEMORY_BYTES, cwd=None, env=None):
    """Runs argv with its address space capped at memory_bytes and a wall-clock limit.

    Output is decoded as UTF-8 with replacement, so binary output cannot break the checks.
    """
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin_bytes is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env,
                            preexec_fn=limit_memory(memory_bytes))
    timed_out = False
    try:
        out, err = proc.communicate(stdin_bytes, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        proc.kill()
        out, err = proc.communicate()
    seconds = time.monotonic() - start
    return Outcome(list(argv), None if timed_out else proc.returncode,
                   out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), timed_out, seconds)


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def clean_end_problems(outcome, one_line_errors=True):
    """The ways `outcome` did not end cleanly, as sentences; empty when it did."""
    problems = []
    if outcome.timed_out:
        problems.append("did not finish within its time limit (%.1f s)" % outcome.seconds)
        return problems
    if outcome.returncode < 0:
        problems.append("killed by %s" % signal_name(-outcome.returncode))
    for marker in CRASH_MARKERS:
        if marker in outcome.text():
            problems.append("printed %r (an exception escaped)" % marker)
    if outcome.returncode > 0:
        # Lines as a terminal or a log sees them: split at newlines only (str.splitlines would
        # also split at \x0b, \x1c or U+0085 echoed back from a hostile argument).
        lines = [l for l in outcome.stderr.split("\n") if l.strip()]
        if not lines:
            problems.append("exit status %d with nothing on stderr" % outcome.returncode)
        elif one_line_errors and len(lines) > 1:
            problems.append("exit status %d with %d lines on stderr, not one" % (outcome.returncode, len(lines)))
    return problems


def run_checked(argv, failures, statuses=(0, 1, 2)):
    """Runs argv under the default limits, records its clean-end problems and an exit status
    outside `statuses` in `failures`; the outcome when it ended cleanly, else None."""
    outcome = run_limited(argv)
    clean = failures.check(outcome)
    if clean and outcome.returncode not in statuses:
        failures.add(outcome, "exit status %d is none of %s" % (outcome.returncode, ", ".join(map(str, statuses))))
    return outcome if clean else None


class Failures:
    """Collects failed runs; `report` prints them and gives the script's exit status."""

    def __init__(self, name, shown=20):
        self.name = name
        self.shown = shown
        self.items = []
        self.runs = 0
        self.slowest = []  # (seconds, command) of the slowest runs, for tuning the time budget

    def check(self, outcome, one_line_errors=True):
        """Records the clean-end problems of one run; returns True when there were none."""
        self.runs += 1
        self.slowest = sorted(self.slowest + [(outcome.seconds, outcome.command()[:200])], reverse=True)[:3]
        problems = clean_end_problems(outcome, one_line_errors)
        for p in problems:
            self.add(outcome, p)
        return not problems

    def add(self, outcome, problem):
        self.items.append((outcome, problem))

    def report(self):
        for seconds, command in self.slowest:
            print("%s: slowest run %.2f s: %s" % (self.name, seconds, command))
        if not self.items:
            print("%s: %d runs, all clean" % (self.name, self.runs))
            return 0
        print("%s: %d problems in %d runs" % (self.name, len(self.items), self.runs))
        for outcome, problem in self.items[: self.shown]:
            print("- %s\n  command: %s\n  exit: %s\n  stderr: %s" % (
                problem, outcome.command()[:2000], outcome.returncode, outcome.stderr.strip()[:500]))
        if len(self.items) > self.shown:
            print("... and %d more" % (len(self.items) - self.shown))
        return 1
