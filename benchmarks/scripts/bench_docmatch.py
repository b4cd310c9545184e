"""Benchmark of document matching at scale: time and peak memory of candidate search
(date-window blocking + top-k index) and Intersection selection for 10k, 50k and 100k
documents a side, on synthetic embeddings (512-d, clustered in topics; each target is a
noisy copy of one source, as a translation is), and the time of the assignment strategy on
the same candidates (at a cosine threshold of ASSIGNMENT_THRESHOLD). No n x m matrix is ever
built. The sentence-evidence stage is not in this table: its cost is encoding the candidate
documents' sentences (docs/document-matching.md).

    cd benchmarks && spacy project run bench-docmatch
    PYTHONPATH=benchmarks/helpers python benchmarks/scripts/bench_docmatch.py [--sizes 10000 50000 100000] [--modes dated undated-ivf]

Each run is a fresh subprocess, so the peak RSS it reports is its own."""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np
from script_output import add_output_option, run_main

MODES = {
    "dated": {"window": 0, "index": "flat", "days": 365},  # 20min-XD: same-day window, exact search
    "dated-w1": {"window": 1, "index": "flat", "days": 365},  # +-1 day (the matcher's default), exact search
    "dated-w3": {"window": 3, "index": "flat", "days": 365},  # +-3 days, exact search
    "undated-ivf": {"window": None, "index": "ivf", "days": 0},  # no dates: one block, faiss IVF
    "undated-hnsw": {"window": None, "index": "hnsw", "days": 0},
    "undated-flat": {"window": None, "index": "flat", "days": 0},
}


ASSIGNMENT_THRESHOLD = 50.0  # x100 cosine: above topic neighbours, below translations


def synthetic(
    n: int, dim: int = 512, topics: int = 2000, noise: float = 0.6, translation_noise: float = 0.6, seed: int = 0
):
    """(source, target, perm): float32 rows generated in chunks, so that generating them costs
    little more memory than holding them; target j is a noisy copy of source perm[j]."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((topics, dim), dtype=np.float32)
    src = np.empty((n, dim), dtype=np.float32)
    tgt = np.empty((n, dim), dtype=np.float32)
    perm = rng.permutation(n)
    for start in range(0, n, 10_000):
        rows = slice(start, min(n, start + 10_000))
        m = rows.stop - rows.start
        src[rows] = centers[rng.integers(0, topics, m)] + noise * rng.standard_normal((m, dim), dtype=np.float32)
    src /= np.linalg.norm(src, axis=1, keepdims=True)
    for start in range(0, n, 10_000):
        rows = slice(start, min(n, start + 10_000))
        m = rows.stop - rows.start
        tgt[rows] = src[perm[rows]] + translation_noise / np.sqrt(dim) * rng.standard_normal((m, dim), dtype=np.float32)
    tgt /= np.linalg.norm(tgt, axis=1, keepdims=True)
    return src, tgt, perm


def current_rss_kb() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def one_run(n: int, mode: str, k: int, threads: int) -> dict:
    from spacy_simalign.docmatch.index import UNDATED, candidates
    from spacy_simalign.docmatch.strategies import select

    cfg = MODES[mode]
    src, tgt, perm = synthetic(n)
    rng = np.random.default_rng(1)
    if cfg["days"]:
        src_days = rng.integers(0, cfg["days"], n).astype(np.int64) + 738000
        tgt_days = src_days[perm]
    else:
        src_days = np.full(n, UNDATED, dtype=np.int64)
        tgt_days = src_days[perm]
    base_rss = current_rss_kb()
    start = time.perf_counter()
    s, t, sim = candidates(src, tgt, src_days, tgt_days, cfg["window"], k, cfg["index"], threads)
    s2, t2, _ = select("intersection", s, t, 100.0 * sim, 0.0)
    seconds = time.perf_counter() - start
    gold = np.empty(n, dtype=np.int64)
    gold[perm] = np.arange(n)  # source i -> target gold[i]
    recall = float(np.mean(gold[s2] == t2) * len(s2) / n) if len(s2) else 0.0
    start = time.perf_counter()
    s3, t3, _ = select("assignment", s, t, 100.0 * sim, ASSIGNMENT_THRESHOLD)
    assign_seconds = time.perf_counter() - start
    assign_recall = float(np.mean(gold[s3] == t3) * len(s3) / n) if len(s3) else 0.0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "n": n,
        "mode": mode,
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak / 1024),
        "data_mb": round(base_rss / 1024),
        "candidates": len(s),
        "recall": round(recall, 4),
        "assignment_seconds": round(assign_seconds, 2),
        "assignment_recall": round(assign_recall, 4),
        "dense_matrix_gb": round(n * n * 4 / 1e9, 1),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 50_000, 100_000])
    parser.add_argument(
        "--modes", nargs="+", choices=sorted(MODES), default=["dated", "dated-w1", "dated-w3", "undated-ivf"]
    )
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    add_output_option(parser)
    parser.add_argument("--one", nargs=2, metavar=("N", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(one_run(int(args.one[0]), args.one[1], args.top_k, args.threads)))
        return 0
    # OpenMP threads only: forcing OpenBLAS to one thread made faiss's IVF training ~6x slower here
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    print(
        "| docs a side | mode | time (s) | peak RSS (MB) | RSS before search (MB) | candidates | "
        "Intersection recall | assignment (s) | assignment recall | dense n^2 float32 would need (GB) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for mode in args.modes:
        for n in args.sizes:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--one",
                    str(n),
                    mode,
                    "--top-k",
                    str(args.top_k),
                    "--threads",
                    str(args.threads),
                ],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            if out.returncode:
                print(f"| {n} | {mode} | failed: {out.stderr.strip().splitlines()[-1]} |||||")
                continue
            r = json.loads(out.stdout)
            print(
                f"| {n:,} | {mode} | {r['seconds']} | {r['peak_rss_mb']} | {r['data_mb']} | {r['candidates']:,} | "
                f"{r['recall']:.4f} | {r['assignment_seconds']} | {r['assignment_recall']:.4f} | "
                f"{r['dense_matrix_gb']} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
