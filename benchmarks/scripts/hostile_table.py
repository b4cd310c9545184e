"""The hostile-input table of docs/hostile-input.md, measured: each
case runs the real command (`python -m spacy_simalign ...` in a fresh folder, or HTTP against a
real `review` server) and the table shows its exit status (or HTTP status), the first line it
printed on stderr, and what it left in the folder.

    cd benchmarks && spacy project run hostile-table
    PYTHONPATH=benchmarks/helpers python benchmarks/scripts/hostile_table.py [--only SUBSTRING]
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unicodedata
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from script_output import add_output_option, run_main

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "spacy_simalign"  # the package the commands run (PYTHONPATH=ROOT)
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
ZWSP = "\u200b"


def dev_lines(n=2):
    return DEV.read_bytes().splitlines(keepends=True)[:n]


def pair(pair_id="p", **changes):
    obj = {
        "id": pair_id,
        "lang": "de",
        "complex": {"paragraphs": [["Ein Satz hier.", "Noch ein Satz."]]},
        "simple": {"text": "Ein Satz. Noch einer."},
    }
    obj.update(changes)
    return (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")


def write(folder: Path, name: str, data: bytes) -> None:
    (folder / name).write_bytes(data)


def long_pair(chars: int) -> bytes:
    words = " ".join(f"wort{k % 997}" for k in range(chars // 7 + 1))[:chars]
    return pair("long", complex={"paragraphs": [["Ein Satz hier.", words, "Noch ein Satz."]]})


def predictions(lines):
    out = []
    for raw in lines:
        obj = json.loads(raw)
        out.append(
            json.dumps(
                {"id": obj["id"], "alignments": [{"complex": c, "simple": s, "score": 1.0} for c, s in obj["gold"]]}
            )
            + "\n"
        )
    return "".join(out).encode("utf-8")


def setup_common(folder: Path) -> None:
    write(folder, "in.jsonl", b"".join(dev_lines()))
    write(folder, "gold.jsonl", b"".join(dev_lines()))
    write(folder, "pred.jsonl", predictions(dev_lines()))


# (input, argv after `python -m spacy_simalign`, extra set-up of the folder)
CASES = [
    ("output is the input", ["align", "in.jsonl", "in.jsonl"], None),
    (
        "output is a symbolic link to the input",
        ["align", "in.jsonl", "link.jsonl"],
        lambda f: (f / "link.jsonl").symlink_to("in.jsonl"),
    ),
    (
        "output is a hard link to the input",
        ["align", "in.jsonl", "hard.jsonl"],
        lambda f: os.link(f / "in.jsonl", f / "hard.jsonl"),
    ),
    ("`--output` names the gold file", ["evaluate", "gold.jsonl", "pred.jsonl", "--output", "gold.jsonl"], None),
    ("`--dropped` is the output", ["align-xling", "in.jsonl", "out.jsonl", "--dropped", "out.jsonl"], None),
    ("output is an existing folder", ["align", "in.jsonl", "results"], lambda f: (f / "results").mkdir()),
    ("output folder does not exist", ["align", "in.jsonl", "missing/out.jsonl"], None),
    ("`--dropped` in a missing folder", ["align-xling", "in.jsonl", "out.jsonl", "--dropped", "no/d.jsonl"], None),
    (
        "a line that is not JSON",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", dev_lines(1)[0] + b'{"id": "x", "lang": }\n'),
    ),
    (
        "100,000 nested brackets",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", b"[" * 100_000 + b"\n"),
    ),
    (
        "gold index of 5,000 digits",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair(gold=[[[0], [0]]]).replace(b"[[[0]", b"[[[" + b"9" * 5000 + b"]")),
    ),
    (
        "gold index of 4,000 digits",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair(gold=[[[0], [0]]]).replace(b"[[[0]", b"[[[" + b"9" * 4000 + b"]")),
    ),
    (
        "gold bead `[[], [0]]`",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair(gold=[[[], [0]]])),
    ),
    (
        "a side with both `text` and `paragraphs`",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair(complex={"text": "A.", "paragraphs": [["A."]]})),
    ),
    (
        "a sentence of one zero-width space",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair(complex={"paragraphs": [["Ein Satz.", ZWSP]]})),
    ),
    ("an empty id", ["align", "bad.jsonl", "out.jsonl"], lambda f: write(f, "bad.jsonl", pair(""))),
    (
        "ids equal but for NFC/NFD",
        ["align", "bad.jsonl", "out.jsonl"],
        lambda f: write(f, "bad.jsonl", pair("Café") + pair(unicodedata.normalize("NFD", "Café"))),
    ),
    (
        "`--lang de`, a pair with `lang: fr`",
        ["align", "mixed.jsonl", "out.jsonl", "--lang", "de", "--method", "tfidf"],
        lambda f: write(f, "mixed.jsonl", pair("a") + pair("b", lang="fr")),
    ),
    (
        "one sentence of 5 MB",
        ["align", "long.jsonl", "out.jsonl"],
        lambda f: write(f, "long.jsonl", long_pair(5_000_000)),
    ),
    (
        "`--resume` on a finished output",
        ["align", "in.jsonl", "out.jsonl", "--method", "tfidf", "--resume"],
        "finished",
    ),
    (
        "SIGTERM while aligning",
        ["align", "many.jsonl", "out.jsonl", "--method", "tfidf", "--batch-size", "1"],
        "sigterm",
    ),
    (
        "SIGINT (Ctrl+C) while aligning",
        ["align", "many.jsonl", "out.jsonl", "--method", "tfidf", "--batch-size", "1"],
        "sigint",
    ),
    (
        "predicted index out of range",
        ["evaluate", "gold.jsonl", "bad.jsonl"],
        lambda f: write(
            f,
            "bad.jsonl",
            predictions(dev_lines(1)).replace(
                b'"alignments": [', b'"alignments": [{"complex": [999], "simple": [0]}, ', 1
            ),
        ),
    ),
    (
        'predicted index `"3"`',
        ["evaluate", "gold.jsonl", "bad.jsonl"],
        lambda f: write(
            f,
            "bad.jsonl",
            predictions(dev_lines(1)).replace(
                b'"alignments": [', b'"alignments": [{"complex": ["3"], "simple": [0]}, ', 1
            ),
        ),
    ),
    (
        "stats: sentences given as numbers",
        ["stats", "bad.jsonl"],
        lambda f: write(
            f, "bad.jsonl", b'{"id": "x", "alignments": [], "complex_sentences": [1], "simple_sentences": ["b"]}\n'
        ),
    ),
]


def config(body: str):
    """A setup writing bad.cfg, an [aligner] config of `body`."""
    return lambda f: write(f, "bad.cfg", ("[aligner]\n" + body).encode("utf-8"))


# configs out of range, terminal escapes
CASES_CONFIGS = [
    (
        "CRF `top_k = -3` in a config",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config('@simalign_aligners = "spacy-simalign.CRFAligner.v2"\ntop_k = -3\n'),
    ),
    (
        "`threshold = NaN` in a config",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config('@simalign_aligners = "spacy-simalign.Tfidf.v1"\nthreshold = NaN\n'),
    ),
    (
        "`[aligner.similarity]` naming an aligner",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config(
            '@simalign_aligners = "spacy-simalign.Tfidf.v1"\n\n[aligner.similarity]\n'
            '@simalign_aligners = "spacy-simalign.CATS.v1"\n'
        ),
    ),
    (
        "a duplicate id holding `ESC]0;...BEL`",
        ["align", "bad.jsonl", "out.jsonl", "--method", "tfidf"],
        lambda f: write(f, "bad.jsonl", pair("evil\x1b]0;pwned\x07") * 2),
    ),
]


def cut_first_pair(folder: Path) -> None:
    """Edit in.jsonl as a user might: its first pair cut to one sentence a side (gold dropped)."""
    lines = (folder / "in.jsonl").read_bytes().splitlines(keepends=True)
    obj = json.loads(lines[0])
    obj["complex"] = {"paragraphs": [[obj["complex"]["paragraphs"][0][0]]]}
    obj["simple"] = {"paragraphs": [[obj["simple"]["paragraphs"][0][0]]]}
    obj.pop("gold", None)
    lines[0] = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
    (folder / "in.jsonl").write_bytes(b"".join(lines))


def fill_disk(folder: Path) -> None:
    """Mount a 2 MB tmpfs at folder/disk (root only) and fill it."""
    disk = folder / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], check=True)
    with open(disk / "filler", "wb") as filler:
        os.posix_fallocate(filler.fileno(), 0, shutil.disk_usage(disk).free)


# pipes, edited inputs, links, full disks. A setup may be (prepare, after-the-first-run).
TFIDF = ["--method", "tfidf"]
CASES_FILES = [
    ("input from a pipe (`cat in.jsonl \\| ...`)", ["align", "/dev/stdin", "out.jsonl", *TFIDF], "pipe"),
    (
        "`--resume` after a pair of the input was edited",
        ["align", "in.jsonl", "out.jsonl", *TFIDF, "--resume"],
        "edited",
    ),
    (
        "`--resume` on an output made with another `--method`",
        ["align", "in.jsonl", "out.jsonl", "--method", "intersection", "--resume"],
        "other-method",
    ),
    (
        "output is a symbolic link to another file",
        ["align", "in.jsonl", "link.jsonl", *TFIDF],
        lambda f: (write(f, "target.jsonl", b"old\n"), (f / "link.jsonl").symlink_to("target.jsonl")),
    ),
    ("a full disk (a 2 MB tmpfs, filled)", ["align", "in.jsonl", "disk/out.jsonl", *TFIDF], "full-disk"),
    ("a full disk, `render`", ["render", "in.jsonl", "disk/view.html"], "full-disk"),
    (
        "SIGKILL of `--n-process 2`",
        ["align", "many.jsonl", "out.jsonl", *TFIDF, "--n-process", "2", "--batch-size", "1"],
        "sigkill-workers",
    ),
]


def text_folders(folder: Path, complex_names=("a.txt",), simple_names=("a.txt",)) -> None:
    """c/ and s/: two folders of text files (the same two sentences in each file), for the
    folder form of `pairs` and `align`."""
    for side, names in (("c", complex_names), ("s", simple_names)):
        (folder / side).mkdir()
        for name in names:
            write(folder / side, name, "Ein Satz. Noch ein Satz.\n".encode("utf-8"))


CAFE_NFC, CAFE_NFD = unicodedata.normalize("NFC", "café.txt"), unicodedata.normalize("NFD", "café.txt")
FOLDERS = ["--lang", "de"]

# the folder form: every file of both folders is an input, stems that differ in Unicode normalisation
CASES_FOLDERS = [
    ("folder form: output is a file of an input folder", ["pairs", "c", "s", "c/a.txt", *FOLDERS], text_folders),
    (
        "folder form: output is a symbolic link to a file of an input folder",
        ["align", "c", "s", "link.jsonl", *FOLDERS, *TFIDF],
        lambda f: (text_folders(f), (f / "link.jsonl").symlink_to("s/a.txt")),
    ),
    (
        "folder form: a new output inside an input folder",
        ["align", "c", "s", "s/out.jsonl", *FOLDERS, *TFIDF],
        text_folders,
    ),
    (
        "folder form: `café.txt` composed (NFC) in one folder, decomposed (NFD, macOS) in the other",
        ["pairs", "c", "s", "pairs.jsonl", *FOLDERS],
        lambda f: text_folders(f, (CAFE_NFC,), (CAFE_NFD,)),
    ),
    (
        "folder form: `café.txt` and `café.md` in one folder, one NFC and one NFD",
        ["pairs", "c", "s", "pairs.jsonl", *FOLDERS],
        lambda f: text_folders(f, (CAFE_NFC, CAFE_NFD.replace(".txt", ".md")), (CAFE_NFC,)),
    ),
]


PLAN_HEADER = "original,simplification,original_id,simplification_id,pair_id,corpus,license,alignment\n"
PLAN_ROW = "Ein Satz.,Ein Satz.,1-1-0-0,1-0-0-0,1,web,CC BY 4.0,identical\n"

CASES_PLANS = [
    (
        "a DEplain plan CSV with a byte-order mark",
        ["convert-deplain", "plan.csv", "out.jsonl"],
        lambda f: write(f, "plan.csv", ("\ufeff" + PLAN_HEADER + PLAN_ROW).encode("utf-8")),
    ),
    (
        "a plan CSV field of 2 MB on line 3",
        ["convert-deplain", "plan.csv", "out.jsonl"],
        lambda f: write(
            f, "plan.csv", (PLAN_HEADER + PLAN_ROW + "x" * 2_000_000 + ",b,1-1-0-1,1-0-0-1,1,c,l,aligned\n").encode()
        ),
    ),
    (
        "`match-docs` with an empty target collection",
        ["match-docs", "docs.jsonl", "empty.jsonl", "matches.jsonl"],
        lambda f: (
            write(f, "docs.jsonl", (ROOT / "tests" / "data" / "xling" / "de.jsonl").read_bytes()),
            write(f, "empty.jsonl", b""),
        ),
    ),
]


AMSTERDAM_ROWS = (
    "Document ID,Complex,Simple\n"
    "1,De gemeente en GVB hebben een onderzoek uit laten voeren.,We onderzochten de behoeften.\n"
    "1,Bijvoorbeeld een deelauto -fiets of -scooter.,Bijvoorbeeld een deelauto of deelfiets.\n"
)
PIPELINE = ROOT / "tests" / "data" / "pipeline-0.1.0"
WEIGHTS = ROOT / "spacy_simalign" / "weights" / "crf"


def damaged_copy(source: Path, folder: Path, name: str, damage) -> None:
    """A copy of the pipeline or weights folder `source` as folder/NAME-OF-SOURCE with `damage`
    applied to the bytes of its file `name`."""
    copy = folder / source.name
    shutil.copytree(source, copy)
    (copy / name).write_bytes(damage((copy / name).read_bytes()))


def without_module(folder: Path, module: str) -> None:
    """A folder `blocked/` whose `module` fails to import as a module that is not installed does
    (run_case puts it first on PYTHONPATH)."""
    package = folder / "blocked" / module
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n"
    )


def flip_middle(data: bytes) -> bytes:
    changed = bytearray(data)
    changed[len(data) // 2] ^= 0x10
    return bytes(changed)


ALIGNER_FILES = "simalign_sentence_aligner/aligner"

# CSV rows, damaged trained pipelines, missing extras, standard output as an output
CASES_ROBUST = [
    (
        "sentence-pair rows CSV with a byte-order mark",
        ["export", "out", "--rows", "rows.csv", "--lang", "nl"],
        lambda f: write(f, "rows.csv", b"\xef\xbb\xbf" + AMSTERDAM_ROWS.encode()),
    ),
    (
        "sentence-pair rows CSV not UTF-8 on line 3",
        ["export", "out", "--rows", "rows.csv", "--lang", "nl"],
        lambda f: write(f, "rows.csv", AMSTERDAM_ROWS.encode().replace(b"deelauto -", b"deelauto \xe9-")),
    ),
    (
        "trained pipeline, its model.pt cut to half",
        ["align", "in.jsonl", "out.jsonl", "--model", PIPELINE.name],
        lambda f: damaged_copy(PIPELINE, f, f"{ALIGNER_FILES}/model.pt", lambda b: b[: len(b) // 2]),
    ),
    (
        "trained pipeline, one bit of its model.pt changed",
        ["align", "in.jsonl", "out.jsonl", "--model", PIPELINE.name],
        lambda f: damaged_copy(PIPELINE, f, f"{ALIGNER_FILES}/model.pt", flip_middle),
    ),
    (
        "CRF weights folder, its model.npz empty",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        lambda f: damaged_copy(WEIGHTS, f, "model.npz", lambda b: b""),
    ),
    (
        "CRF weights folder, its config.json not JSON",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        lambda f: damaged_copy(WEIGHTS, f, "config.json", lambda b: b[: len(b) // 3]),
    ),
    (
        "trained pipeline, its config.cfg garbled",
        ["align", "in.jsonl", "out.jsonl", "--model", PIPELINE.name],
        lambda f: damaged_copy(PIPELINE, f, "config.cfg", lambda b: b"[nlp\n" + b),
    ),
    ("`review` without the review extra (no flask)", ["review", "in.jsonl", "--port", "0"], "blocked:flask"),
    (
        "`align --engine dask` without the distributed extra",
        ["align", "in.jsonl", "out.jsonl", "--engine", "dask", *TFIDF],
        "blocked:distributed",
    ),
    ("output `-`", ["align", "in.jsonl", "-", *TFIDF], None),
    (
        "folder `-` of `export`",
        ["export", "-", "--rows", "rows.csv", "--lang", "nl"],
        lambda f: write(f, "rows.csv", AMSTERDAM_ROWS.encode()),
    ),
]


# export and render: a text no UTF-8 file can hold, a pair edited since it was aligned, a score that
# is no number, a folder holding an earlier export
ONE_BEAD = b'{"id": "p", "alignments": [{"complex": [0], "simple": [0], "score": 0.9}]}\n'
SURROGATE_PAIR = pair().replace(b'"Ein Satz. Noch einer."', b'"Ein Satz.\\ud800 Noch einer."')
ALIGNED_BEFORE_EDIT = ONE_BEAD.replace(
    b"]}\n",
    b'], "complex_sentences": ["Ein Satz hier.", "Noch ein Satz."], "simple_sentences": ["Ein Satz.", "Noch einer."]}\n',
)


def earlier_export(folder: Path) -> None:
    """rows.csv, exported into out/ (JSONL, CSV, TSV and the data card)."""
    write(folder, "rows.csv", AMSTERDAM_ROWS.encode())
    first = [sys.executable, "-m", "spacy_simalign", "export", "out", "--rows", "rows.csv", "--lang", "nl"]
    subprocess.run(first, cwd=folder, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, check=True)


def aligned_then_swapped(folder: Path) -> None:
    """al.jsonl: the first dev pair (pre-segmented) aligned by TF-IDF; edited.jsonl: that pair with
    two complex sentences swapped since and its gold re-indexed, as one edits a gold pair."""
    write(folder, "in.jsonl", dev_lines(1)[0])
    first = [sys.executable, "-m", "spacy_simalign", "align", "in.jsonl", "al.jsonl", *TFIDF]
    subprocess.run(first, cwd=folder, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, check=True)
    obj = json.loads(dev_lines(1)[0])
    paragraphs = obj["complex"]["paragraphs"]
    p = next(k for k, para in enumerate(paragraphs) if len(para) > 1 and para[0] != para[1])
    i = sum(len(para) for para in paragraphs[:p])
    paragraphs[p][:2] = paragraphs[p][1::-1]
    swap = {i: i + 1, i + 1: i}
    obj["gold"] = [[[swap.get(k, k) for k in c], s] for c, s in obj["gold"]]
    write(folder, "edited.jsonl", (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8"))


CASES_EXPORT = [
    (
        "a lone surrogate (`\\ud800`, a JSON escape) in a pair's text, `export`",
        ["export", "out", "--pairs", "bad.jsonl", "--alignments", "al.jsonl", "--formats", "moses"],
        lambda f: (write(f, "bad.jsonl", SURROGATE_PAIR), write(f, "al.jsonl", ONE_BEAD)),
    ),
    (
        "a lone surrogate in a pair's text, `render`",
        ["render", "bad.jsonl", "al.jsonl", "view.html"],
        lambda f: (write(f, "bad.jsonl", SURROGATE_PAIR), write(f, "al.jsonl", ONE_BEAD)),
    ),
    (
        "`export` of a pair whose text was edited since it was aligned",
        ["export", "out", "--pairs", "edited.jsonl", "--alignments", "al.jsonl"],
        lambda f: (
            write(f, "edited.jsonl", pair(complex={"text": "Ein Satz dort. Noch ein Satz."})),
            write(f, "al.jsonl", ALIGNED_BEFORE_EDIT),
        ),
    ),
    (
        "`export` of a pre-segmented pair with two sentences swapped since it was aligned",
        ["export", "out", "--pairs", "edited.jsonl", "--alignments", "al.jsonl"],
        aligned_then_swapped,
    ),
    (
        "`evaluate` of a prediction whose gold pair had two sentences swapped since (its gold re-indexed)",
        ["evaluate", "edited.jsonl", "al.jsonl"],
        aligned_then_swapped,
    ),
    (
        "`evaluate` against an empty gold file",
        ["evaluate", "empty.jsonl", "pred.jsonl"],
        lambda f: write(f, "empty.jsonl", b""),
    ),
    (
        "`evaluate` of predictions with an id not in the gold",
        ["evaluate", "gold.jsonl", "extra.jsonl"],
        lambda f: write(f, "extra.jsonl", predictions(dev_lines()) + ONE_BEAD),
    ),
    (
        "`export --min-score nan`",
        ["export", "out", "--pairs", "in.jsonl", "--alignments", "pred.jsonl", "--min-score", "nan"],
        None,
    ),
    (
        "`export --min-score 2`: no row left",
        [
            "export",
            "out",
            "--pairs",
            "in.jsonl",
            "--alignments",
            "pred.jsonl",
            "--formats",
            "moses",
            "--min-score",
            "2",
        ],
        None,
    ),
    (
        "`export` into a folder holding an earlier export",
        ["export", "out", "--rows", "rows.csv", "--lang", "nl"],
        earlier_export,
    ),
]


def running(pid: int) -> bool:
    """A live process (not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for_pairs(proc, partial: Path, count: int) -> None:
    """Until the running `align` has saved `count` pairs to its partial file (or ended)."""
    while proc.poll() is None and (not partial.exists() or partial.read_bytes().count(b"\n") < count):
        time.sleep(0.02)


def kill_and_count_workers(proc, partial: Path) -> str:
    """SIGKILL `align --n-process` once it saved 3 pairs; how many of its workers run 5 s later."""
    wait_for_pairs(proc, partial, 3)
    found = subprocess.run(["pgrep", "-P", str(proc.pid), "-f", "spawn_main"], capture_output=True, text=True)
    workers = [int(pid) for pid in found.stdout.split()]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    time.sleep(5)
    alive = [pid for pid in workers if running(pid)]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return f"(killed: no message) worker processes running 5 s later: {len(alive)} of {len(workers)}"


SAVED_PIPELINE = ROOT / "tests" / "data" / "pipeline-0.1.0"


def edited_pipeline(folder: Path, old: str, new: str) -> None:
    """pipeline/: a copy of the pipeline saved by 0.1.0 whose config.cfg has `old` replaced by `new`."""
    shutil.copytree(SAVED_PIPELINE, folder / "pipeline")
    config = folder / "pipeline" / "config.cfg"
    config.write_text(config.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")


def training_config(folder: Path) -> None:
    """train.cfg: the saved pipeline's (a full `spacy train` config) with `top_k = -3`."""
    edited_pipeline(folder, "top_k = 6", "top_k = -3")
    shutil.move(str(folder / "pipeline" / "config.cfg"), folder / "train.cfg")
    shutil.rmtree(folder / "pipeline")


# settings refused on spaCy's ways in and by saved pipelines, standard output that cannot be written
CASES_SPACY = [
    (
        "BeadDP over the TF-IDF similarity (cannot embed) in a config",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config(
            '@simalign_aligners = "spacy-simalign.BeadDP.v1"\n\n[aligner.similarity]\n'
            '@simalign_similarity = "spacy-simalign.TfidfSimilarity.v1"\n'
        ),
    ),
    (
        'TF-IDF `threshold = "0.3"` (a string) in a config',
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config('@simalign_aligners = "spacy-simalign.Tfidf.v1"\nthreshold = "0.3"\n'),
    ),
    (
        "a trained pipeline whose config.cfg was edited to `top_k = -3`",
        ["align", "in.jsonl", "out.jsonl", "--model", "pipeline"],
        lambda f: edited_pipeline(f, "top_k = 6", "top_k = -3"),
    ),
    (
        "`spacy train` with `top_k = -3` (`python -m spacy train`)",
        ["train", "train.cfg", "--output", "trained"],
        "spacy",
    ),
    ("standard output closed (`>&-`)", ["init-config", "tfidf"], "stdout-closed"),
    ("standard output on a full disk (`>/dev/full`)", ["init-config", "tfidf"], "stdout-full"),
    ("standard output's reader gone (`\\| head -c 0`)", ["init-config", "tfidf"], "stdout-gone"),
]


def nan_weights(folder: Path) -> None:
    """crf/: a copy of the shipped weights whose model.npz has every float NaN (a whole archive with
    the right checksums: what a training run that diverged saves)."""
    import numpy as np

    from spacy_simalign.aligners.crf.weights_files import read_state, state_bytes

    shutil.copytree(WEIGHTS, folder / WEIGHTS.name)
    path = folder / WEIGHTS.name / "model.npz"
    path.write_bytes(state_bytes({k: np.full_like(v, np.nan) for k, v in read_state(path).items()}))


def without_recorded_wide(folder: Path) -> None:
    """crf/: a copy of the shipped weights (config.json records the wide CRF saved in wide/), then
    wide/ deleted."""
    shutil.copytree(WEIGHTS, folder / WEIGHTS.name)
    shutil.rmtree(folder / WEIGHTS.name / "wide")


# CRF weights that cannot be what they claim: NaN, a recorded wide CRF gone, a width or a null
# that a saved pipeline's or a config's [aligner] gives and nothing would use
CASES_WEIGHTS = [
    (
        "CRF weights folder, every float of its model.npz NaN",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        nan_weights,
    ),
    (
        "CRF weights folder saved with a wide CRF, its wide/ deleted",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        without_recorded_wide,
    ),
    (
        "a trained pipeline whose config.cfg was edited to `hidden = 64`",
        ["align", "in.jsonl", "out.jsonl", "--model", "pipeline"],
        lambda f: edited_pipeline(f, "hidden = 32", "hidden = 64"),
    ),
    (
        "CRF `threshold = null` in a config",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config('@simalign_aligners = "spacy-simalign.CRFAligner.v2"\nthreshold = null\n'),
    ),
]


def user_files(folder: Path, names) -> None:
    """A folder of the user's own files (each `mine`)."""
    folder.mkdir()
    for name in names:
        write(folder, name, b"mine\n")


def klexikon_articles(folder: Path) -> None:
    """articles/wiki and articles/klexikon with one article each, and out/ holding the user's own
    train.jsonl and counts.txt."""
    for side in ("wiki", "klexikon"):
        (folder / "articles" / side).mkdir(parents=True)
        write(folder / "articles" / side, "Aare.txt", "Die Aare ist ein Fluss.\n\nSie ist lang.\n".encode())
    user_files(folder / "out", ("train.jsonl", "counts.txt"))


# nothing is written into the installed package, whatever path names it; folders replaced whole or
# holding the user's files are refused unless --overwrite
CASES_PACKAGE = [
    (
        "`adapt` into the shipped weights, through a symbolic link to them",
        ["adapt", "gold.jsonl", "crf"],
        lambda f: (f / "crf").symlink_to(PACKAGE / "weights" / "crf"),
    ),
    (
        "`align` output in the installed package, through a symbolic link to it",
        ["align", "in.jsonl", "pkg/out.jsonl", *TFIDF],
        lambda f: (f / "pkg").symlink_to(PACKAGE),
    ),
    (
        "`adapt --pipeline` into a folder holding a file of the user's",
        ["adapt", "gold.jsonl", "out", "--pipeline", "pipe"],
        lambda f: user_files(f / "pipe", ("notes.txt",)),
    ),
    (
        "`klexikon` into a folder holding the user's `train.jsonl` and `counts.txt`",
        ["klexikon", "articles", "out", "--min-paragraphs", "1"],
        klexikon_articles,
    ),
]


def edited_weights(change) -> Callable[[Path], None]:
    """crf/: a copy of the shipped weights whose config.json has the keys of `change` (None: emptied to {})."""

    def setup(folder: Path) -> None:
        shutil.copytree(WEIGHTS, folder / WEIGHTS.name)
        path = folder / WEIGHTS.name / "config.json"
        config = {} if change is None else {**json.loads(path.read_text(encoding="utf-8")), **change}
        path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")

    return setup


# numbers no spaCy config holds (whole numbers beyond 64 bits, NaN, infinity) and weights configs
# that are not whole (a key unknown or missing, a value of another type or shape)
CASES_NUMBERS = [
    (
        "CRF `summary_ratio = 18446744073709551616` (2^64) in a config",
        ["align", "in.jsonl", "out.jsonl", "--config", "bad.cfg"],
        config('@simalign_aligners = "spacy-simalign.CRFAligner.v3"\nsummary_ratio = 18446744073709551616\n'),
    ),
    (
        "a trained pipeline whose config.cfg was edited to `wide_margin = 18446744073709551616`",
        ["align", "in.jsonl", "out.jsonl", "--model", "pipeline"],
        lambda f: edited_pipeline(f, "wide_margin = 0.1", "wide_margin = 18446744073709551616"),
    ),
    (
        "a trained pipeline whose config.cfg was edited to `threshold = NaN`",
        ["align", "in.jsonl", "out.jsonl", "--model", "pipeline"],
        lambda f: edited_pipeline(f, "threshold = 0.5", "threshold = NaN"),
    ),
    (
        'CRF weights folder, `"threshold": NaN` in its config.json',
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        edited_weights({"threshold": float("nan")}),
    ),
    (
        "CRF weights folder, 5 bead weights (not 23) in its config.json",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        edited_weights({"bead_weights": [0.5] * 5}),
    ),
    (
        'CRF weights folder, `"encoder": "nonexistent-encoder"` in its config.json',
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        edited_weights({"encoder": "nonexistent-encoder"}),
    ),
    (
        'CRF weights folder, `"wide_crf": "yes"` in its config.json',
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        edited_weights({"wide_crf": "yes"}),
    ),
    (
        "CRF weights folder, its config.json `{}`",
        ["align", "in.jsonl", "out.jsonl", "--model", WEIGHTS.name],
        edited_weights(None),
    ),
]

CASES = (
    CASES
    + CASES_FILES
    + CASES_FOLDERS
    + CASES_CONFIGS
    + CASES_PLANS
    + CASES_ROBUST
    + CASES_EXPORT
    + CASES_WEIGHTS
    + CASES_SPACY
    + CASES_PACKAGE
    + CASES_NUMBERS
)


def listing(folder: Path):
    """Each entry of `folder`: a file's bytes, a folder's own listing (None for anything else)."""
    return {
        p.name: p.read_bytes() if p.is_file() else listing(p) if p.is_dir() and not p.is_symlink() else None
        for p in folder.iterdir()
    }


def differences(before, after, prefix=""):
    """(files changed, (name, listing) of the entries new) from `before` to `after`, named
    from the case's folder: inside the folders that were there before too."""
    changed, new = [], []
    for name in sorted(after):
        path = prefix + name
        if name not in before:
            new.append((path, after[name]))
        elif isinstance(before[name], dict) and isinstance(after[name], dict):
            inner = differences(before[name], after[name], path + "/")
            changed, new = changed + inner[0], new + inner[1]
        elif before[name] != after[name]:
            changed.append(path)
    return changed, new


def left(before, after) -> str:
    changed, new = differences(before, after)
    parts = []
    if changed:
        parts.append("changed: " + ", ".join(changed))
    for name, data in new:
        if isinstance(data, dict):  # a new folder: what it holds
            parts.append(f"{name}/ ({', '.join(sorted(data))})" if data else f"{name}/")
            continue
        lines = data.count(b"\n") if isinstance(data, bytes) and name.endswith((".jsonl", ".partial")) else None
        parts.append(name if lines is None else f"{name} ({lines} lines)")
    return "; ".join(parts) or "nothing (inputs untouched)"


def run_with_stdout(cmd, folder: Path, env, setup: str):
    """(exit status, stderr) of `cmd` with its standard output closed, on /dev/full, or a pipe
    whose reader has gone."""
    if setup == "stdout-closed":
        proc = subprocess.run(cmd, cwd=folder, env=env, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
        return proc.returncode, proc.stderr.decode("utf-8", "replace")
    if setup == "stdout-full":
        with open("/dev/full", "wb") as full:
            proc = subprocess.run(cmd, cwd=folder, env=env, stdout=full, stderr=subprocess.PIPE)
        return proc.returncode, proc.stderr.decode("utf-8", "replace")
    read, write_end = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    proc = subprocess.run(cmd, cwd=folder, env=env, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def run_case(argv, setup):
    with tempfile.TemporaryDirectory(prefix="hostile-") as tmp:
        folder = Path(tmp)
        setup_common(folder)
        cmd = [sys.executable, "-m", "spacy" if setup == "spacy" else "spacy_simalign", *argv]
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        if setup == "spacy":
            training_config(folder)
        elif setup and str(setup).startswith("stdout-"):
            pass
        elif setup == "finished":
            subprocess.run(cmd[:-1], cwd=folder, env=env, capture_output=True, check=True)
        elif setup in ("edited", "other-method"):
            first = [sys.executable, "-m", "spacy_simalign", "align", "in.jsonl", "out.jsonl", *TFIDF]
            subprocess.run(first, cwd=folder, env=env, capture_output=True, check=True)
            if setup == "edited":
                cut_first_pair(folder)
        elif setup == "full-disk":
            fill_disk(folder)
        elif setup == "pipe":
            pass  # in.jsonl goes to standard input
        elif isinstance(setup, str) and setup.startswith("blocked:"):
            without_module(folder, setup.split(":", 1)[1])
            env["PYTHONPATH"] = os.pathsep.join([str(folder / "blocked"), str(ROOT)])
        elif setup in ("sigterm", "sigint", "sigkill-workers"):
            write(
                folder,
                "many.jsonl",
                b"".join(
                    json.dumps(dict(json.loads(raw), id=f"p{k}")).encode() + b"\n"
                    for k, raw in enumerate(dev_lines(40))
                ),
            )
        elif setup:
            setup(folder)
        before = listing(folder)
        if setup in ("sigterm", "sigint"):
            proc = subprocess.Popen(
                cmd,
                cwd=folder,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as a terminal's job has it
            )
            partial = folder / "out.jsonl.partial"
            wait_for_pairs(proc, partial, 3)
            proc.send_signal(signal.SIGTERM if setup == "sigterm" else signal.SIGINT)
            _, err = proc.communicate()
            code = proc.returncode
            code = 128 - code if code < 0 else code
        elif setup == "sigkill-workers":
            proc = subprocess.Popen(cmd, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            err, code = kill_and_count_workers(proc, folder / "out.jsonl.partial"), 137
        elif setup in ("stdout-closed", "stdout-full", "stdout-gone"):
            code, err = run_with_stdout(cmd, folder, env, setup)
        else:
            stdin = (folder / "in.jsonl").read_bytes() if setup == "pipe" else None
            proc = subprocess.run(cmd, cwd=folder, env=env, capture_output=True, input=stdin)
            code, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
            if setup == "spacy":  # spaCy prints its messages on stdout: its line of the failure
                said = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout.decode("utf-8", "replace")).splitlines()
                err = "\n".join(line for line in said if line.startswith("\u2718")) + err
        err = err.replace(str(folder) + os.sep, "")  # an absolute path shown as within the case's folder
        err = err.replace(str(PACKAGE), "SITE/spacy_simalign")  # where the package is installed
        lines = [line for line in err.strip().splitlines() if line]
        shown = " / ".join(lines[:2]) if setup in ("sigterm", "sigint", "edited") else (lines[0] if lines else "")
        if len(shown) > 170:
            shown = shown[:167] + "..."
        rest = left(before, listing(folder))
        if setup == "full-disk":
            disk = [p.name for p in (folder / "disk").iterdir() if p.name != "filler"]
            rest = "nothing on the full disk" if not disk else "on the disk: " + ", ".join(sorted(disk))
            subprocess.run(["umount", str(folder / "disk")], check=True)
        return code, shown, rest


def review_cases():
    """(request, HTTP status, message) against a real review server on a free port."""
    from spacy_simalign.review.app import ReviewServer

    out = []
    with tempfile.TemporaryDirectory(prefix="hostile-review-") as tmp:
        pairs = Path(tmp) / "pairs.jsonl"
        pairs.write_bytes(b"".join(dev_lines()))
        before = pairs.read_bytes()
        server = ReviewServer(str(pairs), port=0).start()
        try:
            obj = json.loads(dev_lines(1)[0])
            url = f"http://127.0.0.1:{server.port}/api/pairs/{obj['id']}/gold"
            good = json.dumps({"gold": obj["gold"][1:]}).encode()
            token = {"X-Review-Token": server.token}
            for what, body, headers in (
                ("PUT without the token", good, {}),
                ("PUT with the token, `Origin: http://evil`", good, {**token, "Origin": "http://evil"}),
                ("PUT with a 3 MB body", b'{"gold": [], "pad": "' + b"x" * 3_000_000 + b'"}', token),
                ("PUT of 100,000 nested brackets", b"[" * 100_000 + b"]" * 100_000, token),
            ):
                request = urllib.request.Request(
                    url,
                    data=body,
                    method="PUT",
                    headers={"Content-Type": "application/json", "If-Match": '"x"', **headers},
                )
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        status, message = response.status, json.loads(response.read()).get("error", "")
                except urllib.error.HTTPError as err:
                    status, message = err.code, json.loads(err.read()).get("error", "")
                out.append((what, status, message))
        finally:
            server.stop()
        assert pairs.read_bytes() == before, "a refused request changed the pairs file"
    return out


def review_file_cases():
    """(what, status, message, left behind) of the review rows on its files: a killed save's temporary
    copy, ids that are dot segments or start with `/`, and the token in the access log."""
    import logging
    from urllib.parse import quote

    from spacy_simalign.review.app import ReviewServer

    out = []
    with tempfile.TemporaryDirectory(prefix="hostile-review-") as tmp:
        pairs = Path(tmp) / "pairs.jsonl"
        ids = (".", "..", "/leading")
        pairs.write_bytes(
            b"".join(json.dumps(dict(json.loads(raw), id=i)).encode() + b"\n" for raw, i in zip(dev_lines(3), ids))
        )
        stale = Path(tmp) / ".tmp-k1ll3d00pairs.jsonl"  # what a save killed with SIGKILL leaves
        stale.write_bytes(pairs.read_bytes())
        os.utime(stale, (0, 0))
        log = []
        handler = logging.Handler()
        handler.emit = lambda record: log.append(record.getMessage())
        logging.getLogger("werkzeug").addHandler(handler)
        logging.getLogger("werkzeug").setLevel(logging.INFO)
        server = ReviewServer(str(pairs), port=0).start()
        try:
            left = "removed at start" if not stale.exists() else "still there"
            out.append(("a temporary copy left by a save killed with SIGKILL", "start", "(nothing printed)", left))
            for pair_id in ids:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{server.port}/api/pair?id={quote(pair_id, safe='')}",
                    headers={"X-Review-Token": server.token},
                )
                with urllib.request.urlopen(request, timeout=60) as response:
                    got = json.loads(response.read())["id"]
                out.append(
                    (
                        f"the page opens the pair of id `{pair_id}`",
                        f"HTTP {response.status}",
                        f"id {got}",
                        "nothing (file untouched)",
                    )
                )
            with urllib.request.urlopen(server.url, timeout=60) as response:
                status = response.status
            assert not any(server.token in m for m in log), "the token is in the access log"
            line = next(m for m in log if "GET /?" in m)
            shown = line.split('"')[1] if '"' in line else line
            out.append(("the access log of the page's URL", f"HTTP {status}", shown, "the token is not in the log"))
        finally:
            server.stop()
            logging.getLogger("werkzeug").removeHandler(handler)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run only the cases whose input contains this text")
    add_output_option(ap)
    args = ap.parse_args(argv)
    print("| input | command | exit | message (stderr) | left behind |")
    print("|---|---|---|---|---|")
    for what, argv_, setup in CASES:
        if args.only in what:
            code, message, rest = run_case(argv_, setup)
            message = message.replace("|", "\\|")
            print(f"| {what} | `{' '.join(argv_)}` | {code} | `{message}` | {rest} |", flush=True)
    if args.only in "review":
        for what, status, message in review_cases():
            print(f"| {what} | `review pairs.jsonl` | HTTP {status} | `{message}` | nothing (file untouched) |")
    if args.only in "review (files)":
        for what, status, message, rest in review_file_cases():
            print(f"| {what} | `review pairs.jsonl` | {status} | `{message}` | {rest} |")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
