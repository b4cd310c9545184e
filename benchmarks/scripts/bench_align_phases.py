"""Where the time of one default `align` goes, phase by phase, on a pair file (default: the
Text+Berg dev article, the TransRead dev novels and NTREX's 123 German-French news documents,
translations that go to the bead decoder):
imports, pipeline build, Doc pairs (spaCy's tokenization), the encoder (every USE call for the
sentences, the model's load included), the candidates (the bead decoder's n:m candidates: the
vectors of their joined texts, composed from the sentences' encoding, bead_units.py and
similarity/use_runs.py), the bead decoder without those, and the rest (reading,
checking, writing). Each figure is the median of --runs fresh processes; CPU seconds beside wall
seconds, since on a shared machine the wall clock moves with the load.

    cd benchmarks && spacy project run bench-align-phases
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/bench_align_phases.py [--runs 3] [--python PY] [PAIRS ...]

The runs use .venv-align (`make setup-align`: the required dependencies only, no torch) when it
is built, else this interpreter.

A run is `python -m spacy_simalign align PAIRS OUT` in this process, with wall and CPU timers
around the package's own functions for each phase (nothing else is changed; the beads are the
CLI's)."""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from script_output import add_output_option, run_main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
PAIRS = (
    DATA / "textberg-dev-de-fr" / "pairs.jsonl",
    DATA / "transread-dev-en-fr" / "pairs.jsonl",
    DATA / "ntrex-news" / "de-fr.jsonl",
)
ALIGN_PYTHON = ROOT / ".venv-align" / "bin" / "python"  # a user's install, no torch (`make setup-align`)
PHASES = ("imports", "pipeline", "doc pairs", "encoder", "candidates", "decoder", "rest", "whole")
ABSORBING = {"candidates"}  # a wrapped call inside one of these counts for it, not for its own phase


class Clock:
    """Wall and CPU seconds spent inside the wrapped functions, per phase; a call inside another
    phase's call counts for the inner phase only, unless the outer phase is in ABSORBING."""

    def __init__(self):
        self.wall = dict.fromkeys(PHASES, 0.0)
        self.cpu = dict.fromkeys(PHASES, 0.0)
        self.stack = []

    def wrap(self, owner, name, phase):
        inner = getattr(owner, name)

        def timed(*args, **kwargs):
            start = (time.perf_counter(), time.process_time())
            outer = self.stack[-1][0] if self.stack else None
            self.stack.append([outer if outer in ABSORBING else phase, 0.0, 0.0])
            try:
                return inner(*args, **kwargs)
            finally:
                counted, nested_wall, nested_cpu = self.stack.pop()
                wall = time.perf_counter() - start[0]
                cpu = time.process_time() - start[1]
                self.wall[counted] += wall - nested_wall
                self.cpu[counted] += cpu - nested_cpu
                if self.stack:
                    self.stack[-1][1] += wall
                    self.stack[-1][2] += cpu

        setattr(owner, name, timed)


def one_run(pairs: str) -> dict:
    """Align `pairs` once in this process: {phase: [wall, cpu]}."""
    start = (time.perf_counter(), time.process_time())
    import spacy_simalign.engines.align_file  # noqa: F401 - spaCy, thinc and torch come with it
    from spacy_simalign.__main__ import run_command
    from spacy_simalign.aligners import bead_dp
    from spacy_simalign.aligners.bead_units import CandidateRescorer
    from spacy_simalign.engines import work
    from spacy_simalign.similarity.backends import USESimilarity

    clock = Clock()
    clock.wall["imports"] = time.perf_counter() - start[0]
    clock.cpu["imports"] = time.process_time() - start[1]
    clock.wrap(work, "alignment_pipeline", "pipeline")
    clock.wrap(work, "pair_from_record", "doc pairs")
    clock.wrap(USESimilarity, "encode", "encoder")
    clock.wrap(CandidateRescorer, "joined", "candidates")
    clock.wrap(bead_dp, "align_monotone", "decoder")
    with tempfile.TemporaryDirectory() as tmp:
        code = run_command(["align", pairs, os.path.join(tmp, "out.jsonl")])
    if code:
        raise SystemExit(f"error: align {pairs} failed with status {code}")
    whole = (time.perf_counter() - start[0], time.process_time() - start[1])
    clock.wall["whole"], clock.cpu["whole"] = whole
    clock.wall["rest"] = whole[0] - sum(clock.wall[p] for p in PHASES[:-2])
    clock.cpu["rest"] = whole[1] - sum(clock.cpu[p] for p in PHASES[:-2])
    return {p: [clock.wall[p], clock.cpu[p]] for p in PHASES}


def installed(python: str) -> str:
    """Which install `python` is: with or without torch."""
    probe = "import importlib.util; print(importlib.util.find_spec('torch') is not None)"
    found = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    return f"{python}, " + ("with torch" if found == "True" else "without torch (a user's install)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", default=[str(p) for p in PAIRS], help="pair JSONL files (default: two sets)")
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per file (default 3): medians")
    ap.add_argument(
        "--python",
        default=str(ALIGN_PYTHON) if ALIGN_PYTHON.exists() else sys.executable,
        help="the interpreter of the runs (default .venv-align's, a user's install without torch, if built)",
    )
    ap.add_argument("--once", default=None, help=argparse.SUPPRESS)  # a child run: print its phases as JSON
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.once:
        print(json.dumps(one_run(args.once)))
        return 0
    missing = [p for p in args.pairs if not Path(p).is_file()]
    if missing:
        print(f"error: {missing[0]}: no such pair file (the default sets are in ../shared/data)", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if k != "SPACY_SIMALIGN_CACHE"}  # no embedding cache
    print(f"One default `align` per pair file, phase by phase: medians of {args.runs} fresh processes, wall / CPU s.")
    print(f"Load average at the start {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {installed(args.python)}.")
    print()
    print("| pair file | " + " | ".join(PHASES) + " |")
    print("|---|" + "---|" * len(PHASES))
    for pairs in args.pairs:
        runs = []
        for _ in range(args.runs):
            proc = subprocess.run(
                [args.python, __file__, "--once", pairs], capture_output=True, text=True, env=env, check=False
            )
            if proc.returncode:
                print(proc.stderr.strip()[-800:], file=sys.stderr)
                return 2
            runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        cells = []
        for phase in PHASES:
            wall = statistics.median(r[phase][0] for r in runs)
            cpu = statistics.median(r[phase][1] for r in runs)
            cells.append(f"{wall:.2f} / {cpu:.2f}")
        print(f"| {Path(pairs).parent.name}/{Path(pairs).name} | " + " | ".join(cells) + " |")
    print()
    print(
        "imports = spacy_simalign's engine with spaCy and thinc (and torch, which thinc imports where it is "
        "installed); encoder = every USESimilarity.encode "
        "call for the sentences (the model's load at the first, which waits for the read started in the background); "
        "candidates = the vectors of the n:m candidates' joined texts, composed (bead_units.CandidateRescorer.joined); decoder = bead_dp.align_monotone less "
        "those; rest = argument parsing, reading and checking the input, writing the output."
    )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
