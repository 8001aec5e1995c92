"""Build step (python/kernels.cmake): write the prebuilt kernels' sources and manifest.

    python build_kernels.py OUT_DIR FILTER ARCH [ARCH ...]      (ARCH: 80, 90a, ...)

Writes OUT_DIR/<name>.cu for every configuration of tessel.jit.prebuilt.configs() whose name
FILTER (a regular expression) finds, a manifest
naming the cubin nvcc will write for each architecture the configuration runs on
(<name>.sm_<ARCH>.cubin; Hopper kernels only for 90a), and OUT_DIR/sources.txt with one
"<name>.cu ARCH..." per line for CMake; and the FP8 quantize kernels (tessel.jit.quantize) for every
ARCH, under the manifest's "quantize", and the small-N TMA rings (tessel.jit.small_n) for 90a,
under "small_n". Runs before the extension exists,
so it loads the package's pure-Python modules without running tessel/__init__.py.
"""

import json
import re
import sys
import types
from pathlib import Path

package = Path(__file__).resolve().parent / "tessel"
stub = types.ModuleType("tessel")
stub.__path__ = [str(package)]
sys.modules["tessel"] = stub

from tessel.jit import codegen, prebuilt, quantize, small_n  # noqa: E402


def _write(src: Path, text: str):
    if not src.is_file() or src.read_text() != text:  # keep the timestamp when unchanged
        src.write_text(text)


def main(out_dir: str, pattern: str, *archs: str):
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    entries, names = [], []
    for config in prebuilt.configs():
        if not re.search(pattern, config.name):
            continue
        src = out / f"{config.name}.cu"
        _write(src, codegen.source(config))
        targets = prebuilt.archs(config, archs)
        if not targets:
            continue
        names.append(" ".join([src.name, *targets]))
        entries.append({"config": config.key(), "cubins": {f"sm_{a}": f"{config.name}.sm_{a}.cubin" for a in targets}})
    # The FP8 quantize kernels (jit/quantize.py): for every architecture, whatever the filter
    # chose, since NVRTC cannot compile them at run time.
    quant = []
    for element in quantize.INPUTS:
        src = out / f"{quantize.name(element)}.cu"
        _write(src, quantize.source(element))
        names.append(" ".join([src.name, *archs]))
        quant.append({"input": element, "cubins": {f"sm_{a}": f"{quantize.name(element)}.sm_{a}.cubin" for a in archs}})
    # The small-N TMA rings (jit/small_n.py), on Hopper only, whatever the filter chose.
    rings = []
    if small_n.ARCH in archs:
        for ring in small_n.RINGS:
            src = out / f"{small_n.name(*ring)}.cu"
            _write(src, small_n.source(*ring))
            names.append(f"{src.name} {small_n.ARCH}")
            rings.append({"ring": list(ring), "cubins": {f"sm_{small_n.ARCH}": f"{small_n.name(*ring)}.sm_{small_n.ARCH}.cubin"}})
    (out / "manifest.json").write_text(json.dumps({"kernels": entries, "quantize": quant, "small_n": rings}, indent=1))
    (out / "sources.txt").write_text("\n".join(names) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], *sys.argv[3:])
