"""The default `align` gives the same beads whatever BLAS kernel and thread count numpy's OpenBLAS
runs: machines differ in both (some set OPENBLAS_CORETYPE), and BLAS promises equal bits for
neither. Each run is a subprocess with its own settings; this process never changes its own.
Kernels are tried only where the CPU has their instructions (Haswell: AVX2, SkylakeX: AVX-512F)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DEPLAIN_PAIRS

pytestmark = pytest.mark.slow


def cpu_flags() -> set:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    return {flag for line in text.splitlines() if line.startswith("flags") for flag in line.split(":", 1)[1].split()}


def settings():
    """(name, environment overrides) of each BLAS set-up this CPU can run."""
    flags = cpu_flags()
    kernels = [("machine's own", {})]
    if "avx2" in flags:
        kernels.append(("Haswell", {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "512"}))
    if "avx512f" in flags:
        kernels.append(("SkylakeX", {"OPENBLAS_CORETYPE": "SkylakeX"}))
    return [
        (f"{name}, {threads} thread(s)", {**env, "OPENBLAS_NUM_THREADS": str(threads)})
        for name, env in kernels
        for threads in (1, 2)
    ]


def beads(pairs: Path, out: Path, overrides: dict):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENBLAS_")}
    env.update(overrides)
    run = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", "align", str(pairs), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    with open(out, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    return [(r["id"], [(b["complex"], b["simple"]) for b in r["alignments"]]) for r in rows]


@pytest.mark.parametrize("name", ["deplain", "textberg"])
def test_the_default_align_gives_the_same_beads_under_every_kernel_and_thread_count(name, tmp_path, shared_data):
    pairs = DEPLAIN_PAIRS if name == "deplain" else shared_data("textberg-dev-de-fr/pairs.jsonl")
    found = {label: beads(pairs, tmp_path / f"{k}.jsonl", env) for k, (label, env) in enumerate(settings())}
    first = next(iter(found.values()))
    assert sum(len(b) for _, b in first) > 300
    assert {label: run == first for label, run in found.items()} == {label: True for label in found}
