"""Speed and memory of the CRF aligner, one table from one run:
1. the bare encoder (multilingual USE) on the DEplain-web dev sentences, encoded side by side
   as the aligner encodes them, with an empty cache;
2. the whole aligner (shipped weights) on the same documents, again from an empty cache
   (1 and 2 interleaved document by document, so that other load on the machine hits both alike);
3. synthetic pairs of N sentences per side (dev documents concatenated and cut to N),
   embeddings already cached so that the aligner's own cost shows: time and peak memory,
   each size in a forked child process.

    cd benchmarks && spacy project run bench-crf
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/bench_crf.py [--docs 82] [--sizes 50,200,1000,5000]

Do not set SPACY_SIMALIGN_CACHE for this benchmark: it measures encoding too.
"""

import argparse
import json
import os
import random
import resource
import sys
import time
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.core.structures import Side
from spacy_simalign.similarity.backends import USESimilarity

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"


def fresh_encoder(model, threads):
    enc = USESimilarity(threads=threads)
    enc._model = model  # share the loaded weights, not the cache
    return enc


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def synthetic(records, n, seed):
    """A pair with n sentences per side: whole dev documents concatenated (repeated if needed), cut to n."""
    rng = random.Random(seed)
    cpar, spar, nc, ns = [], [], 0, 0
    while nc < n or ns < n:
        r = rng.choice(records)
        cpar += [list(p) for p in r["complex"]["paragraphs"]]
        spar += [list(p) for p in r["simple"]["paragraphs"]]
        nc += sum(len(p) for p in r["complex"]["paragraphs"])
        ns += sum(len(p) for p in r["simple"]["paragraphs"])

    def cut(paras):
        out, left = [], n
        for p in paras:
            if left <= 0:
                break
            out.append(p[:left])
            left -= len(out[-1])
        return out

    return Side.from_paragraphs(cut(cpar)), Side.from_paragraphs(cut(spar))


def run_size(aligner, records, n, seed, pipe):
    complex_side, simple_side = synthetic(records, n, seed)
    before = rss_mb()
    t0 = time.perf_counter()
    beads = aligner.align(complex_side, simple_side)
    elapsed = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pipe.send((elapsed, peak, peak - before, len(beads)))
    pipe.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DEFAULT_DATA))
    ap.add_argument("--docs", type=int, default=82, help="how many dev documents to time")
    ap.add_argument("--sizes", default="50,200,1000,5000")
    ap.add_argument("--threads", type=int, default=0, help="encoder threads (0 = all cores)")
    ap.add_argument(
        "--no-wide", action="store_true", help="the DEplain-web CRF alone, without the wide CRF (crf/choice.py)"
    )
    add_output_option(ap)
    args = ap.parse_args(argv)
    os.environ.pop("SPACY_SIMALIGN_CACHE", None)
    records = [json.loads(line) for line in open(args.data, encoding="utf-8") if line.strip()]
    docs = records[: args.docs]
    sides = [
        (
            Side.from_paragraphs(r["complex"]["paragraphs"], r.get("lang", "de")),
            Side.from_paragraphs(r["simple"]["paragraphs"], r.get("lang_simple", r.get("lang", "de"))),
        )
        for r in docs
    ]
    n_sent = sum(len(c) + len(s) for c, s in sides)
    warm = USESimilarity(threads=args.threads)
    warm.encode(["Ein Satz zum Aufwärmen."], "de")
    model = warm.model

    aligner = CRFAligner.default(encoder=fresh_encoder(model, args.threads))
    if args.no_wide:
        aligner.attach_wide(None)
    aligner.align(*synthetic(records, 5, 0))  # load everything once
    bare = fresh_encoder(model, args.threads)
    aligner._encoder = fresh_encoder(model, args.threads)
    aligner._featurizer = None
    t_bare = t_full = 0.0
    for k, (c, s) in enumerate(sides):  # interleaved, in alternating order, so that load hits both alike
        for which in (0, 1) if k % 2 == 0 else (1, 0):
            t0 = time.perf_counter()
            if which == 0:
                bare.encode(c.sentences, c.lang)
                bare.encode(s.sentences, s.lang)
                t_bare += time.perf_counter() - t0
            else:
                aligner.align(c, s)
                t_full += time.perf_counter() - t0

    # synthetic sizes: warm the cache with every dev sentence, then fork one child per size
    cached = aligner.encoder
    for r in records:
        for side in ("complex", "simple"):
            cached.encode([t for p in r[side]["paragraphs"] for t in p], "de")
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    rows = []
    for n in [int(x) for x in args.sizes.split(",") if x]:
        recv, send = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=run_size, args=(aligner, records, n, 0, send))
        proc.start()
        send.close()
        rows.append((n,) + recv.recv())
        proc.join()

    print(
        f"CRF aligner benchmark: {len(docs)} DEplain-web dev documents, {n_sent} sentences, "
        f"encoder threads {args.threads or os.cpu_count()} (the CRF's own work runs in numpy)"
    )
    print(f"{'measure':44s} {'value':>12s}")
    print(f"{'bare encoder (USE), sentences/s':44s} {n_sent / t_bare:12.1f}")
    print(f"{'whole aligner, sentences/s':44s} {n_sent / t_full:12.1f}")
    print(f"{'ratio aligner / encoder':44s} {t_bare / t_full:12.3f}")
    for n, elapsed, peak, extra, nb in rows:
        print(f"{f'synthetic {n} x {n}: time s (encoder cached)':44s} {elapsed:12.2f}")
        print(f"{f'synthetic {n} x {n}: peak RSS MB (+ over start)':44s} {peak:7.0f} (+{extra:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
