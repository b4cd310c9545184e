"""Peer benchmark: bertalign against our aligners ON THE SAME ENCODER (multilingual USE), so
that differences come from the algorithms. One table from one run:

    make bench-peers       # builds .venv-peers (Python 3.12, bertalign 2.0.1) first, then runs
                           # `spacy project run bench-peers`, that is this script

rows = systems; for Text+Berg dev (de-fr, one article) and DEplain-web dev (82 de documents):
link P/R/F1, strict bead F1 (a predicted bead counts only if it equals a gold bead: our
bead-text F1), the algorithm-only time (seconds, all encoder calls excluded) and the whole
time (wall clock from the pair JSONL to the beads: process starts, model loading, encoding).

- bertalign 2.0.1 (max_align 5, top_k 3, win 5, skip -0.1: the paper's settings) runs in
  .venv-peers through project/peers_bertalign.py. The strings it embeds (each side's
  concatenations of 1..4 consecutive sentences) are embedded HERE by our USESimilarity
  (`encode`, the method the CRF uses) and handed over as .npy files. Its 1:0 and 0:1 beads
  are dropped before scoring (the gold files hold no beads with an empty side).
- ours: `python -m spacy_simalign align` (the default CRF) and `align-xling --method
  intersection --no-filter` (20min-XD; --no-filter because DEplain's two sides are one
  language, which the pair filters drop). Whole time = the CLI's wall clock; algorithm time =
  the same code in this process, after a warm-up, minus the time spent in the encoder.
- DEplain: the shipped CRF weights were trained on these 82 documents, so the CRF row is
  5-fold cross-validation by document (project/cv_crf.py's folds, from evaluation.crossval,
  and training; fold models run through the CLI with --model); bertalign and intersection have nothing to train and run
  on all 82. A last row gives the shipped weights in-sample, for reference.

SPACY_SIMALIGN_CACHE (embedding cache) changes no score, but with it the whole times hold
almost no encoding: `make bench-peers` runs without it.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Sequence, Tuple

from spacy_simalign.evaluation.report import add_output_option, run_main

ROOT = Path(__file__).resolve().parent.parent
PEERS_VENV = ROOT / ".venv-peers"
PEERS_PYTHON = PEERS_VENV / "bin" / "python"
PEERS_SCRIPT = ROOT / "project" / "peers_bertalign.py"
DATA = ROOT.parent / "shared" / "data"
TEXTBERG = DATA / "textberg-dev-de-fr" / "pairs.jsonl"
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
BERTALIGN_SETTINGS = {"max_align": 5, "top_k": 3, "win": 5, "skip": -0.1}

Beads = List[Tuple[Tuple[int, ...], Tuple[int, ...]]]


class Doc(NamedTuple):
    id: str
    src: List[str]  # complex side (Text+Berg: German)
    tgt: List[str]  # simple side (Text+Berg: French)
    src_lang: str
    tgt_lang: str
    gold: Beads


# ---- every call into spacy_simalign is in this section (easy to port when the package moves) ----


def ours_env() -> Dict[str, str]:
    """Environment for our CLI: this checkout's package first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def ours_load(path: Path) -> List[Doc]:
    from spacy_simalign.formats.pairs import read_pairs

    docs = []
    for record in read_pairs(str(path)):
        c, s = record.side("complex"), record.side("simple")
        docs.append(
            Doc(
                record.id,
                list(c.sentences),
                list(s.sentences),
                c.lang,
                s.lang,
                [(tuple(b.complex), tuple(b.simple)) for b in record.gold or []],
            )
        )
    return docs


def ours_encoder():
    """A new instance of the encoder our CRF uses (same class, settings and `encode` method as
    make_use_similarity()'s shared one, but its own cache and model load, so that it is timed)."""
    from spacy_simalign.similarity.backends import USESimilarity

    return USESimilarity()


def ours_score(docs: Sequence[Doc], preds: Sequence[Beads]) -> Dict[str, float]:
    """Pooled link P/R/F1 and strict bead F1 (= bead-text F1 here) with AlignmentScorer."""
    from spacy_simalign.evaluation.scoring import AlignmentScorer
    from spacy_simalign.structures import Bead

    scorer = AlignmentScorer()
    for doc, beads in zip(docs, preds):
        scorer.add([Bead(c, s) for c, s in doc.gold], [Bead(c, s) for c, s in beads], doc.src, doc.tgt)
    s = scorer.scores()
    return {"p": s["link"]["p"], "r": s["link"]["r"], "f": s["link"]["f"], "bead": s["bead_text"]["f"]}


def ours_cli(args: Sequence[str], output: Path) -> Tuple[Dict[str, Beads], float]:
    """Run `python -m spacy_simalign ARGS` (this venv, this checkout): ({id: beads}, wall seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", *args], env=ours_env(), capture_output=True, text=True
    )
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"error: spacy_simalign {' '.join(args)} failed: {proc.stderr.strip()[-500:]}")
    out = {}
    with open(output, encoding="utf-8") as handle:
        for line in handle:
            obj = json.loads(line)
            out[obj["id"]] = [(tuple(a["complex"]), tuple(a["simple"])) for a in obj["alignments"]]
    return out, seconds


class EncoderClock:
    """Times every USESimilarity.encode call in this process (class-wide) while active."""

    def __enter__(self):
        from spacy_simalign.similarity.backends import USESimilarity

        self.cls, self.orig, self.seconds = USESimilarity, USESimilarity.encode, 0.0
        clock = self

        def encode(obj, *args, **kwargs):
            t0 = time.perf_counter()
            try:
                return clock.orig(obj, *args, **kwargs)
            finally:
                clock.seconds += time.perf_counter() - t0

        USESimilarity.encode = encode
        return self

    def __exit__(self, *exc):
        self.cls.encode = self.orig


def ours_in_process(method: str, path: Path, model: str = None) -> Tuple[Dict[str, Beads], float]:
    """The CLI's code path in this process, after a warm-up on the first pair (pipeline, weights,
    encoder loaded): ({id: beads}, seconds outside the encoder). method: crf | intersection."""
    from spacy_simalign.aligners.methods import build_aligner, method_config
    from spacy_simalign.formats.pairs import read_pairs

    records = list(read_pairs(str(path)))
    if method == "crf":
        from spacy_simalign.commands.align import DEFAULT_BATCH_SIZE
        from spacy_simalign.engines.work import AlignJob, align_records

        job = AlignJob(method_config("crf").to_str(), model, DEFAULT_BATCH_SIZE, 0)
        align_records(records[:1], job)

        def run():
            out = []
            for i in range(0, len(records), job.batch_size):
                out += align_records(records[i : i + job.batch_size], job)
            return {o["id"]: [(tuple(a["complex"]), tuple(a["simple"])) for a in o["alignments"]] for o in out}
    else:
        from spacy_simalign.corpus.xling_align import pairs_from_pair_file

        aligner = build_aligner(method_config(method))
        pairs = pairs_from_pair_file(str(path))
        aligner.align(pairs[0].source, pairs[0].target)

        def run():
            return {
                p.id: [(tuple(b.complex), tuple(b.simple)) for b in aligner.align(p.source, p.target)] for p in pairs
            }

    with EncoderClock() as clock:
        t0 = time.perf_counter()
        preds = run()
        total = time.perf_counter() - t0
    return preds, total - clock.seconds


def ours_train_folds(path: Path, folds: int, epochs: int, seed: int, outdir: Path) -> Tuple[List[List[int]], float]:
    """project/cv_crf.py's folds and training: one CRF per fold, saved to outdir/fold<k>.
    Returns (test document indices per fold, training seconds)."""
    from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
    from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
    from spacy_simalign.evaluation.crossval import folds_of
    from spacy_simalign.formats.pairs import read_training_pairs

    t0 = time.perf_counter()
    pairs = read_training_pairs(str(path))
    probe = CRFAligner({})
    inputs = featurize_all(probe, pairs, with_gold=True)
    splits = folds_of(len(pairs), folds, seed)
    for f, test in enumerate(splits):
        train = [i for i in range(len(pairs)) if i not in set(test)]
        aligner = train_aligner(
            [pairs[i] for i in train],
            {},
            epochs=epochs,
            settings=TrainingSettings(seed=seed),
            encoder=probe.encoder,
            inputs=[inputs[i] for i in train],
        )
        aligner.save(outdir / f"fold{f}")
        print(f"  fold {f + 1}/{folds} trained ({len(train)} documents)", file=sys.stderr, flush=True)
    return splits, time.perf_counter() - t0


# ---- end of the calls into spacy_simalign ----


def peers(args: Sequence[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(PEERS_PYTHON), str(PEERS_SCRIPT), *args],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    if proc.returncode:
        raise SystemExit(f"error: peers_bertalign.py {args[0]} failed: {proc.stderr.strip()[-800:]}")
    return time.perf_counter() - t0


def run_bertalign(docs: Sequence[Doc], work: Path) -> Tuple[List[Beads], float, float, Dict]:
    """(beads per doc without 1:0/0:1, algorithm seconds, whole seconds, info)."""
    work.mkdir(parents=True, exist_ok=True)
    request = {
        "settings": BERTALIGN_SETTINGS,
        "docs": [
            {"id": d.id, "src": d.src, "tgt": d.tgt, "src_lang": d.src_lang, "tgt_lang": d.tgt_lang} for d in docs
        ],
    }
    (work / "request.json").write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    whole = peers(["overlaps", str(work / "request.json"), str(work / "overlaps.json")])
    import numpy as np

    t0 = time.perf_counter()
    encoder = ours_encoder()
    strings = json.loads((work / "overlaps.json").read_text(encoding="utf-8"))["docs"]
    for k, (doc, ov) in enumerate(zip(docs, strings)):
        np.save(work / f"{k}-src.npy", encoder.encode(ov["src"], doc.src_lang))
        np.save(work / f"{k}-tgt.npy", encoder.encode(ov["tgt"], doc.tgt_lang))
    encoding = time.perf_counter() - t0
    whole += encoding + peers(["align", str(work / "request.json"), str(work), str(work / "result.json")])
    result = json.loads((work / "result.json").read_text(encoding="utf-8"))
    preds, dropped = [], 0
    for doc, r in zip(docs, result["docs"]):
        assert r["id"] == doc.id
        kept = [(tuple(s), tuple(t)) for s, t in r["beads"] if s and t]
        dropped += len(r["beads"]) - len(kept)
        preds.append(kept)
    info = dict(
        result["info"],
        dropped=dropped,
        encoding_seconds=encoding,
        overlaps=sum(len(o["src"]) + len(o["tgt"]) for o in strings),
    )
    return preds, sum(r["seconds"] for r in result["docs"]), whole, info


def drop_empty(beads: Beads) -> Beads:
    return [(c, s) for c, s in beads if c and s]


def subset_file(path: Path, indices: Sequence[int], out: Path) -> None:
    lines = [line for line in open(path, encoding="utf-8") if line.strip()]
    out.write_text("".join(lines[i] for i in indices), encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--textberg", default=str(TEXTBERG))
    ap.add_argument("--deplain", default=str(DEPLAIN))
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=20, help="CRF training epochs per fold (as cv_crf.py)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the figures here")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if not (PEERS_VENV / ".installed").exists() or not PEERS_PYTHON.exists():
        print(
            f"error: the bertalign venv {PEERS_VENV} is missing: run `make bench-peers` (it builds it with "
            "python3.12, then runs this benchmark)",
            file=sys.stderr,
        )
        return 2
    t_start = time.perf_counter()
    rows: Dict[str, Dict[str, Dict]] = {}
    notes = []

    def put(system, dataset, docs, preds, algo, whole, label):
        s = ours_score(docs, [drop_empty(b) for b in preds])
        rows.setdefault(system, {})[dataset] = dict(s, algo=algo, whole=whole, label=label)

    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        tmp = Path(tmp)
        for dataset, path in (("textberg", Path(args.textberg)), ("deplain", Path(args.deplain))):
            docs = ours_load(path)
            log = f"{dataset}: {len(docs)} documents"
            print(log, file=sys.stderr, flush=True)
            preds, algo, whole, info = run_bertalign(docs, tmp / f"bertalign-{dataset}")
            put("bertalign", dataset, docs, preds, algo, whole, "all")
            notes.append(
                f"bertalign on {dataset}: {info['overlaps']} overlap strings embedded in "
                f"{info['encoding_seconds']:.1f} s; {info['dropped']} beads with an empty side dropped; "
                f"numba warm-up {info['warm_up_seconds']:.1f} s (in whole, not in algorithm)"
            )
            bert_info = info

            ids = [d.id for d in docs]
            out = tmp / f"xling-{dataset}.jsonl"
            cli, whole = ours_cli(["align-xling", str(path), str(out), "--method", "intersection", "--no-filter"], out)
            inproc, algo = ours_in_process("intersection", path)
            assert inproc == cli, "align-xling: in-process beads differ from the CLI's"
            put(
                "intersection",
                dataset,
                docs,
                [cli[i] for i in ids],
                algo,
                whole,
                "in-sample" if dataset == "deplain" else "all",
            )

            if dataset == "textberg":
                out = tmp / "crf-textberg.jsonl"
                cli, whole = ours_cli(["align", str(path), str(out)], out)
                inproc, algo = ours_in_process("crf", path)
                assert inproc == cli, "align: in-process beads differ from the CLI's"
                put("crf", dataset, docs, [cli[i] for i in ids], algo, whole, "all")
                continue
            splits, train_seconds = ours_train_folds(path, args.folds, args.epochs, args.seed, tmp)
            preds, algo, whole = {}, 0.0, 0.0
            for f, test in enumerate(splits):
                sub, out, model = tmp / f"fold{f}.jsonl", tmp / f"crf-fold{f}.jsonl", str(tmp / f"fold{f}")
                subset_file(path, test, sub)
                cli, seconds = ours_cli(["align", str(sub), str(out), "--model", model], out)
                inproc, a = ours_in_process("crf", sub, model)
                assert inproc == cli, f"align fold {f}: in-process beads differ from the CLI's"
                preds.update(cli)
                algo, whole = algo + a, whole + seconds
            put("crf", dataset, docs, [preds[i] for i in ids], algo, whole, f"{args.folds}-fold CV")
            notes.append(
                f"CRF {args.folds}-fold CV on deplain: training {train_seconds:.0f} s (not in the "
                f"times), {args.epochs} epochs, seed {args.seed}; whole = {args.folds} CLI runs, one "
                "per fold model"
            )
            out = tmp / "crf-deplain-shipped.jsonl"
            cli, whole = ours_cli(["align", str(path), str(out)], out)
            inproc, algo = ours_in_process("crf", path)
            assert inproc == cli, "align: in-process beads differ from the CLI's"
            put("crf-shipped", dataset, docs, [cli[i] for i in ids], algo, whole, "IN-SAMPLE")

    names = {
        "bertalign": "bertalign 2.0.1 + USE (5/3/5/-0.1)",
        "crf": "ours: align (CRF, default)",
        "intersection": "ours: align-xling intersection (40)",
        "crf-shipped": "ours: align, shipped weights (ref.)",
    }
    titles = {"textberg": "Text+Berg dev de-fr (1 article)", "deplain": "DEplain-web dev (82 documents)"}
    cols = f"{'eval':>9s} {'P':>6s} {'R':>6s} {'F1':>6s} {'bead':>6s} {'algo s':>7s} {'whole s':>8s}"
    width = len(cols)
    cache = os.environ.get("SPACY_SIMALIGN_CACHE")
    print(
        f"Peer benchmark, one run: link P/R/F1, strict bead F1, algorithm-only and whole seconds; "
        f"every system on the multilingual USE encoder; embedding cache {'ON (' + cache + ')' if cache else 'off'}"
    )
    print(f"{'':36s} | " + " | ".join(f"{titles[d]:^{width}s}" for d in titles))
    print(f"{'system':36s} | " + " | ".join(cols for _ in titles))
    print("-" * (39 + 2 * width + 3))
    for key, name in names.items():
        cells = []
        for d in titles:
            r = rows.get(key, {}).get(d)
            cells.append(
                f"{'-':^{width}s}"
                if r is None
                else f"{r['label']:>9s} {r['p']:6.3f} {r['r']:6.3f} {r['f']:6.3f} {r['bead']:6.3f} "
                f"{r['algo']:7.2f} {r['whole']:8.1f}"
            )
        print(f"{name:36s} | " + " | ".join(cells))
    print(
        "eval: all = every document, nothing trained on it; 5-fold CV = each document aligned by a CRF that "
        "never saw it; in-sample = the intersection threshold (40) was chosen on these 82 documents; "
        "IN-SAMPLE = weights trained on them."
    )
    print(
        "Text+Berg is a translation (two languages, about the same length): the default align sends it to "
        "the bead decoder (bead_dp.py), not to the CRF, whose weights learned German simplification only."
    )
    for note in notes:
        print(note)
    print(
        f"bertalign {bert_info['bertalign']} in .venv-peers (Python {bert_info['python']}, numba "
        f"{bert_info['numba']}, numpy {bert_info['numpy']}); top-k search in numpy (see peers_bertalign.py); "
        f"vecalign: not on PyPI, left out. Total {time.perf_counter() - t_start:.0f} s."
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
