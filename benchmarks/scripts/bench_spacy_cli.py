"""What the plugin adds to every spaCy command: `python -m spacy info` in an environment with
spacy-simalign installed against one without it, fresh processes run in turn (the order rotates
each round, so that load from other processes hits both alike), the median wall and CPU seconds;
and, in each environment, the time spaCy takes to load its `spacy_cli` entry points, where
`python -m spacy simalign` comes in (median of fresh processes).

    PYTHONPATH=benchmarks/helpers python benchmarks/scripts/bench_spacy_cli.py --without /tmp/bare/bin/python [--with .venv/bin/python] [--rounds 20]

An environment without the plugin: copy the virtualenv (`cp -a .venv /tmp/bare`), then
`/tmp/bare/bin/python -m pip uninstall -y spacy-simalign`. Install the plugin from a wheel to time
what users get (an editable install adds its path finder to every start of Python)."""

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time

from script_output import add_output_option, run_main

# spaCy's CLI imported, as `python -m spacy` has before it loads the entry points.
LOAD = (
    "import time, spacy.cli\n"
    "from spacy.util import registry\n"
    "t = time.perf_counter(); names = registry.cli.get_all()\n"
    "print((time.perf_counter() - t) * 1000, 'simalign' in names)\n"
)


def timed(cmd):
    """Wall and CPU seconds (user + system) of one process, run in a folder of its own so that a
    checkout's package is not imported in place of the installed one."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise SystemExit(f"error: {' '.join(cmd)} failed: {result.stderr.strip()[-300:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, result.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--with", dest="with_", default=sys.executable, help="Python of an environment with the plugin")
    ap.add_argument("--without", required=True, help="Python of the same environment without the plugin")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=2, help="rounds run first and not counted")
    add_output_option(ap)
    args = ap.parse_args(argv)
    pythons = {"without the plugin": args.without, "with the plugin": args.with_}
    info = {name: [] for name in pythons}
    load = {name: [] for name in pythons}
    names = list(pythons)
    for r in range(args.warmup + args.rounds):
        for name in names[r % 2 :] + names[: r % 2]:
            wall, cpu, _ = timed([pythons[name], "-m", "spacy", "info"])
            ms, listed = timed([pythons[name], "-c", LOAD])[2].split()
            if (listed == "True") != (name == "with the plugin"):
                raise SystemExit(
                    f"error: {pythons[name]}: `simalign` is {'' if listed == 'True' else 'not '}a spaCy command"
                )
            if r >= args.warmup:
                info[name].append((wall, cpu))
                load[name].append(float(ms))
    print(f"`python -m spacy info`, {args.rounds} rounds: median (min)\n")
    print("| | wall s | CPU s (user + system) | spaCy loads its CLI entry points, ms |")
    print("|---|---|---|---|")
    for name in names:
        walls, cpus = zip(*info[name])
        print(
            f"| {name} | {statistics.median(walls):.3f} ({min(walls):.3f}) | "
            f"{statistics.median(cpus):.3f} ({min(cpus):.3f}) | {statistics.median(load[name]):.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
