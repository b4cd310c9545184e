"""Throughput and memory of `align` at corpus scale: the DEplain-web dev pairs repeated to
N pairs (default 1,000), aligned in 1 process, 2 local processes and a 2-worker Dask
LocalCluster; pairs/s (wall clock, start-up included) and peak resident memory (all
processes of the run together, sampled every 0.1 s), plus a check that every engine
wrote the same bytes. `--big` adds one pair of S x S sentences (default 5,000) per method
for the memory budget (2 GB).

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run bench-align-scale   # --big 5000
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers python benchmarks/scripts/bench_align_scale.py --method crf
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from script_output import add_output_option, run_main

ROOT = Path(__file__).resolve().parents[2]
DEV = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data")) / "deplain-web-dev" / "pairs.jsonl"

CONFIGS = [
    ("1 process", []),
    ("2 processes", ["--n-process", "2"]),
    ("Dask LocalCluster, 2 workers", ["--engine", "dask", "--n-process", "2"]),
]


def dev_pairs():
    with open(DEV, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def write_repeated(path: Path, n: int) -> None:
    rows = dev_pairs()
    with open(path, "w", encoding="utf-8") as handle:
        for k in range(n):
            row = dict(rows[k % len(rows)])
            row["id"] = f"{row['id']}#{k}"
            row.pop("gold", None)
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_big(path: Path, size: int) -> None:
    """One pair of `size` x `size` sentences, five per paragraph, from the dev sentences."""
    rows = dev_pairs()
    sides = {}
    for name in ("complex", "simple"):
        pool = [s for r in rows for para in r[name]["paragraphs"] for s in para]
        sents = [pool[k % len(pool)] for k in range(size)]  # repeats keep the embedding cache warm
        sides[name] = {"paragraphs": [sents[i : i + 5] for i in range(0, size, 5)]}
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "big", "lang": "de", **sides}, ensure_ascii=False) + "\n")


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(args, env):
    """(seconds, peak RSS of the whole process tree in bytes, return code, stderr tail)."""
    t0 = time.monotonic()
    proc = psutil.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss(proc))
        time.sleep(0.1)
    seconds = time.monotonic() - t0
    err = proc.stderr.read().decode("utf-8", "replace")[-500:]
    proc.stderr.close()
    return seconds, peak, proc.returncode, err


def align_cmd(src, out, method, extra):
    return [sys.executable, "-m", "spacy_simalign", "align", str(src), str(out), "--method", method, *extra]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--method", default="crf")
    parser.add_argument("--pairs", type=int, default=1000)
    parser.add_argument("--big", type=int, default=0, help="also one pair of BIG x BIG sentences (e.g. 5000)")
    parser.add_argument("--big-methods", default="crf,massalign,tfidf,cats-c3g")
    parser.add_argument("--skip-engines", action="store_true")
    add_output_option(parser)
    opts = parser.parse_args(argv)
    env = dict(os.environ, SPACY_SIMALIGN_NO_PROGRESS="1", HF_HUB_OFFLINE="1")
    print(f"cores: {os.cpu_count()}, SPACY_SIMALIGN_CACHE={env.get('SPACY_SIMALIGN_CACHE', '')!r}")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if not opts.skip_engines:
            src = tmp / "pairs.jsonl"
            write_repeated(src, opts.pairs)
            print(f"\n`align --method {opts.method}` on {opts.pairs} pairs (DEplain-web dev x {opts.pairs / 82:.1f})\n")
            print("| engine | pairs/s | wall s | peak RSS, all processes (MiB) | output sha256 |")
            print("|---|---:|---:|---:|---|")
            for label, extra in CONFIGS:
                out = tmp / "out.jsonl"
                seconds, peak, code, err = measure(align_cmd(src, out, opts.method, extra), env)
                if code != 0:
                    print(f"| {label} | failed ({code}) | | | {err.strip().splitlines()[-1:]} |")
                    continue
                digest = hashlib.sha256(out.read_bytes()).hexdigest()[:12]
                print(
                    f"| {label} | {opts.pairs / seconds:.1f} | {seconds:.0f} | {peak / 2**20:.0f} | {digest} |",
                    flush=True,
                )
        if opts.big:
            src = tmp / "big.jsonl"
            write_big(src, opts.big)
            print(f"\none pair of {opts.big} x {opts.big} sentences, 1 process\n")
            print("| method | wall s | peak RSS (MiB) | beads |")
            print("|---|---:|---:|---:|")
            for method in opts.big_methods.split(","):
                out = tmp / "big.out"
                seconds, peak, code, err = measure(align_cmd(src, out, method, []), env)
                beads = (
                    len(json.loads(out.read_text(encoding="utf-8"))["alignments"])
                    if code == 0
                    else f"failed: {err[-120:]}"
                )
                print(f"| {method} | {seconds:.0f} | {peak / 2**20:.0f} | {beads} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
