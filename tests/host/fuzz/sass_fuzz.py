#!/usr/bin/env python3
"""Fuzz test of tessel-sass: random listings in the three text forms it reads, valid ones with
their counts checked, malformed ones that must be refused cleanly.

Valid listings (`cuobjdump -sass` with `-res-usage`, or `nvcc -Xptxas -v`) are generated with
known contents, and `--json` must report exactly the kernels, architectures, instruction and
opcode counts, registers and local bytes generated, and gates must hold or fail as the counts
say. Malformed ones (random bytes, truncated lines, figures past 2^63, a directory, an endless
device, a missing file) must end with a nonzero exit and one line on stderr, in bounded time
and memory. Every run is checked by fuzz_common for signals, escaped exceptions and timeouts.

  sass_fuzz.py --exe path/to/tessel-sass [--runs N] [--seed S]
"""

import argparse
import json
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz_common  # noqa: E402

OPCODES = ["HMMA.16816.F32", "HMMA.1688.F32", "HMMA.16816.F32.BF16", "LDSM.16.M88.4", "LDSM.16.MT88.2",
           "LDGSTS.E.BYPASS.128", "HGMMA.64x128x16.F32", "UTMALDG.2D", "LDL", "STL", "FADD", "IMAD.MOV.U32",
           "BRA", "EXIT", "S2R", "LDG.E.128", "STG.E"]
ARCHS = ["sm_75", "sm_80", "sm_86", "sm_90a"]


def random_kernel(rng, i):
    """(mangled name, its opcode list, registers, local bytes) of one generated kernel."""
    base = "k%d_%s" % (i, "".join(rng.choice("abcxyz") for _ in range(rng.randint(1, 6))))
    name = "_Z%d%sPf" % (len(base), base)
    ops = [rng.choice(OPCODES) for _ in range(rng.randint(0, 40))]
    return name, ops, rng.choice([rng.randint(8, 255), rng.randint(1 << 31, 1 << 40)]), rng.choice([0, 0, 16, 1 << 33])


def sass_text(arch, kernels, rng):
    out = ["", "Fatbin elf code:", "================", "arch = %s" % arch, "code version = [1,8]", "",
           "\tcode for %s" % arch, "\t.target\t%s" % arch, ""]
    for name, ops, _, _ in kernels:
        out.append("\t\tFunction : %s" % name)
        out.append('\t.headerflags\t@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"')
        for k, op in enumerate(ops):
            guard = rng.choice(["", "", "@P0 ", "@!P1 "])
            out.append("        /*%04x*/                   %s%s R12, R4, R8, RZ ;   /* 0x000000080c0c723c */" % (16 * k, guard, op))
            out.append("                                                             /* 0x001fe200000010ff */")
        out.append("\t\t..........")
    return "\n".join(out) + "\n"


def res_usage_text(arch, kernels):
    out = ["", "Fatbin elf code:", "================", "arch = %s" % arch, "", "Resource usage:", " Common:", "  GLOBAL:0"]
    for name, _, regs, local in kernels:
        out.append(" Function %s:" % name)
        out.append("  REG:%d STACK:0 SHARED:0 LOCAL:%d CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0" % (regs, local))
    return "\n".join(out) + "\n"


def ptxas_text(arch, kernels):
    out = ["ptxas info    : 0 bytes gmem"]
    for name, _, regs, local in kernels:
        out.append("ptxas info    : Compiling entry function '%s' for '%s'" % (name, arch))
        out.append("ptxas info    : Function properties for %s" % name)
        out.append("    %d bytes stack frame, %d bytes spill stores, %d bytes spill loads" % (local, local, local))
        out.append("ptxas info    : Used %d registers, used 0 barriers, 368 bytes cmem[0]" % regs)
    return "\n".join(out) + "\n"


class Fuzzer:
    def __init__(self, exe, rng, failures, workdir):
        self.exe, self.rng, self.failures, self.workdir = exe, rng, failures, workdir
        self.files = 0

    def file_with(self, data):
        self.files += 1
        path = os.path.join(self.workdir, "listing%d.txt" % self.files)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def run(self, *args):
        return fuzz_common.run_checked([self.exe] + list(args), self.failures)

    def expect(self, outcome, condition, what):
        if not condition:
            self.failures.add(outcome, what)

    def check_valid(self):
        rng = self.rng
        arch = rng.choice(ARCHS)
        kernels = [random_kernel(rng, i) for i in range(rng.randint(1, 12))]
        ptxas = rng.random() < 0.3
        if ptxas:
            files = [self.file_with(ptxas_text(arch, kernels))]
        else:
            texts = [sass_text(arch, kernels, rng), res_usage_text(arch, kernels)]
            rng.shuffle(texts)  # any order, as separate files or one
            files = [self.file_with(t) for t in texts] if rng.random() < 0.5 else [self.file_with("".join(texts))]
        o = self.run(*files, "--json")
        if o is None:
            return
        if o.returncode != 0:
            if ptxas or any(ops for _, ops, _, _ in kernels):
                self.failures.add(o, "refused a valid listing")
            return
        got = {(k["name"], k["arch"]): k for k in json.loads(o.stdout)["kernels"]}
        for name, ops, regs, local in kernels:
            k = got.get((name, arch))
            if k is None:
                self.failures.add(o, "kernel %s [%s] missing from the JSON" % (name, arch))
                continue
            self.expect(o, k["registers"] == regs, "%s: registers %s, generated %d" % (name, k["registers"], regs))
            if ptxas:
                self.expect(o, k["spill_store_bytes"] == local, "%s: spill stores %s, generated %d" % (name, k["spill_store_bytes"], local))
                continue
            self.expect(o, k["local_bytes"] == local, "%s: local bytes %s, generated %d" % (name, k["local_bytes"], local))
            self.expect(o, k["instructions"] == len(ops), "%s: %s instructions, generated %d" % (name, k["instructions"], len(ops)))
            want = {}
            for op in ops:
                want[op] = want.get(op, 0) + 1
            self.expect(o, k["opcodes"] == want, "%s: opcodes %s, generated %s" % (name, k["opcodes"], want))
        self.expect(o, len(got) == len(kernels), "%d kernels reported, %d generated" % (len(got), len(kernels)))
        if not ptxas:
            self.check_gate(files, kernels)

    def check_gate(self, files, kernels):
        """A gate on one generated count holds exactly when the count says so."""
        name, ops, _, _ = self.rng.choice(kernels)
        family = self.rng.choice(["HMMA", "LDSM", "LDGSTS", "FADD", "HMMA.16816"])
        n = sum(1 for op in ops if op == family or op.startswith(family + "."))
        bound = n + self.rng.choice([-1, 0, 1])
        o = self.run(*files, "--kernel=" + name, "--expect=%s>=%d" % (family, bound), "--quiet")
        if o is not None:
            self.expect(o, o.returncode == (0 if n >= bound else 1),
                        "gate %s>=%d on %d found: exit %d" % (family, bound, n, o.returncode))

    def check_malformed(self):
        rng = self.rng
        kind = rng.randrange(6)
        arch = rng.choice(ARCHS)
        kernels = [random_kernel(rng, i) for i in range(rng.randint(1, 5))]
        valid = sass_text(arch, kernels, rng) + res_usage_text(arch, kernels)
        if kind == 0:  # random bytes, with or without NULs (a NUL makes it look like a binary)
            data = bytes(rng.randrange(0 if rng.random() < 0.3 else 1, 256) for _ in range(rng.randint(0, 4000)))
            args = [self.file_with(data)]
        elif kind == 1:  # truncated and cut lines
            lines = valid.splitlines()
            cut = [l[: rng.randint(0, len(l))] if rng.random() < 0.3 else l for l in lines[: rng.randint(0, len(lines))]]
            args = [self.file_with("\n".join(cut))]
        elif kind == 2:  # figures past 2^31, 2^63 and 2^64, and signs
            big = rng.choice(["2147483648", "4294967297", "9223372036854775807", "9223372036854775808",
                              "18446744073709551617", "1" + "0" * rng.randint(20, 3000), "-1", "-99999999999999999999"])
            field = rng.choice(["REG:", "LOCAL:", "STACK:"])
            text = valid.replace(field + str(kernels[0][2 if field == "REG:" else 3]), field + big, 1)
            text = text if rng.random() < 0.5 else ptxas_text(arch, kernels).replace("Used %d" % kernels[0][2], "Used " + big, 1)
            args = [self.file_with(text), "--json"]
        elif kind == 3:  # things that are not files of text
            args = [rng.choice([self.workdir, "/dev/zero", "/dev/null", os.path.join(self.workdir, "missing.txt")])]
        elif kind == 4:  # bad options and gates
            args = [self.file_with(valid), rng.choice(["--expect=HMMA", "--expect=HMMA>=99999999999999999999", "--expect=>=1",
                                                      "--arch=80", "--kernel=", "--bogus", "--expect"])]
        else:  # many kernels, names long and odd
            names = ["_Z%d%s" % (n, "P" * n) for n in (rng.randint(1, 3000),)] + ["x" * rng.randint(1, 100000)]
            text = "code for sm_80\n" + "".join("Function : %s\n/*0000*/ EXIT ;\n" % n for n in names)
            text += "".join("Function : k%d\n/*0000*/ EXIT ;\n" % i for i in range(rng.randint(0, 20000)))
            args = [self.file_with(text), rng.choice(["--json", "--histogram", "--kernel=nomatch"])]
        self.run(*args)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--exe", required=True, help="the tessel-sass binary")
    p.add_argument("--runs", type=int, default=300)
    p.add_argument("--seed", type=int, default=16)
    a = p.parse_args()
    rng = random.Random(a.seed)
    failures = fuzz_common.Failures("sass_fuzz")
    with tempfile.TemporaryDirectory(prefix="sass_fuzz") as workdir:
        f = Fuzzer(a.exe, rng, failures, workdir)
        for _ in range(a.runs):
            if rng.random() < 0.5:
                f.check_valid()
            else:
                f.check_malformed()
    return failures.report()


if __name__ == "__main__":
    sys.exit(main())
