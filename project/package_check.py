"""The install check of a built pipeline package: make a fresh virtual environment (no system
site-packages), pip install the spacy-simalign wheel that the package step put in PACKAGES_DIR
(project/plugin_wheel.py) and the package, with the versions of constraints.txt and without
torch (aligning does not need it, so a user's install has none; a transformer pipeline requires it
and spacy-transformers, which pip then installs: network or its cache), then in that environment
`spacy.load("<lang>_<name>")` aligns a real gold pair with no other set-up
(no cache, no download) and must reach a sane link F1. Timings of each step go to the JSON
output, which names files by their names only (no path of the machine it ran on).

    python project/package_check.py PACKAGES_DIR --name simalign_web --version 0.1.0 --lang de --gold GOLD.jsonl \
        --output metrics/package_check.json
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import spacy

import spacy_simalign
from spacy_simalign import pair
from spacy_simalign.pipeline.readers import read_gold_docs

# A two-sentence text and its three-sentence simplification per language: the packages for
# the other languages must segment them with their own rules and align the identical last sentence.
SMOKE = {
    "nl": (
        "De gemeente heeft nieuwe regels voor het parkeren in de binnenstad vastgesteld, die vanaf 1 januari "
        "gelden. Bewoners kunnen een vergunning aanvragen.",
        "De gemeente heeft nieuwe regels voor parkeren. De regels gelden vanaf 1 januari. "
        "Bewoners kunnen een vergunning aanvragen.",
    ),
    "fr": (
        "La ville a adopté de nouvelles règles de stationnement dans le centre, qui entrent en vigueur le "
        "1er janvier. Les habitants peuvent demander une autorisation.",
        "La ville a de nouvelles règles pour le stationnement. Les règles commencent le 1er janvier. "
        "Les habitants peuvent demander une autorisation.",
    ),
    "en": (
        "The city council adopted new parking rules for the centre, which take effect on 1 January. "
        "Residents can apply for a permit.",
        "The city has new parking rules. The rules start on 1 January. Residents can apply for a permit.",
    ),
    "de": (
        "Die Stadt hat neue Regeln für das Parken in der Innenstadt beschlossen, die ab dem 1. Januar gelten. "
        "Anwohner können eine Erlaubnis beantragen.",
        "Die Stadt hat neue Regeln für das Parken. Die Regeln gelten ab dem 1. Januar. "
        "Anwohner können eine Erlaubnis beantragen.",
    ),
}

# The script run in the fresh environment: `check.py PIPELINE PAIR.json [LANG ...]` loads PIPELINE (a
# package name or a folder) and each LANG's pipeline named like it (<lang>_ and the rest of its name,
# beside it), and prints one JSON line (aligned_as_expected reads it). It imports only what a user
# would: the documented spacy_simalign.pair and the registered scorer, found through the wheel's entry points.
CHECK = (
    "SMOKE = "
    + repr(SMOKE)
    + r"""
import json, os, sys, time
t0 = time.perf_counter()
import spacy
from spacy.training import Example

import spacy_simalign
from spacy_simalign.pair import make_pair
record = json.loads(open(sys.argv[2], encoding="utf-8").read())
nlp = spacy.load(sys.argv[1])
t1 = time.perf_counter()
sides = (record["complex"]["paragraphs"], record["simple"]["paragraphs"])
doc = nlp(make_pair(nlp, *sides, record["lang"]))
t2 = time.perf_counter()
reference = make_pair(nlp, *sides, record["lang"], gold=record["gold"])
score = spacy.registry.scorers.get("spacy-simalign.alignment_scorer.v1")()
link_f = score([Example(doc, reference)])["align_link_f"]
smoke = {}
folder, name = os.path.split(sys.argv[1])
for lang in sys.argv[3:]:
    other = spacy.load(os.path.join(folder, f"{lang}_" + name.split("_", 1)[1]))
    complex_text, simple_text = SMOKE[lang]
    d = other(make_pair(other, complex_text, simple_text))
    smoke[lang] = {"sentences": [len(d._.complex_sents), len(d._.simple_sents)],
                   "beads": [[list(b.complex), list(b.simple)] for b in d._.beads]}
print(json.dumps({"smoke": smoke, "plugin": spacy_simalign.__file__, "spacy": spacy.__version__, "pipeline": nlp.pipe_names,
                  "id": record["id"], "beads": len(doc._.beads), "link_f": link_f,
                  "load_s": round(t1 - t0, 2), "align_s": round(t2 - t1, 2)}))
"""
)


def run(cmd, **kwargs) -> float:
    """Run a command (output shown on failure only) and return its wall time."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    if proc.returncode:
        sys.stderr.write(proc.stdout[-5000:])
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}")
    return time.perf_counter() - start


def without_path(requirement: str) -> str:
    """A `pip freeze` line without the folder of a local wheel: `name @ file:///.../x.whl#sha256=...`
    becomes `name @ x.whl` (the report must not hold paths of the machine it ran on)."""
    name, sep, url = requirement.partition(" @ ")
    if not sep or not url.startswith("file://"):
        return requirement
    return f"{name} @ {url.split('#')[0].rsplit('/', 1)[-1]}"


def pick_pair(gold: Path, max_sentences: int = 40) -> dict:
    """The first gold pair (pair JSONL or DocBin of Doc pairs) with 5 to `max_sentences`
    sentences per side, as a pair dict with pre-segmented sides (a quick check)."""
    nlp = spacy.blank("xx")
    for doc in read_gold_docs(nlp, gold):
        sides = [pair.side_of(doc, name) for name in pair.SIDE_NAMES]
        if doc._.alignment_data and max(map(len, sides)) <= max_sentences and min(map(len, sides)) >= 5:
            obj = {"id": doc._.pair_id, "lang": sides[0].lang, "gold": [bead[:2] for bead in doc._.alignment_data]}
            for name, side in zip(pair.SIDE_NAMES, sides):
                obj[name] = {"paragraphs": [[side.sentences[i] for i in para] for para in side.paragraphs]}
            return obj
    raise SystemExit(f"no gold pair of 5-{max_sentences} sentences in {gold}")


def aligned_as_expected(result: dict, min_link_f: float) -> bool:
    """Whether the output of CHECK shows a working pipeline: beads on the gold pair with a link F1
    of at least `min_link_f`, and each other language's short pair split into 2 and 3 sentences
    with its identical last sentences aligned."""
    smoke_ok = all(
        out["sentences"] == [2, 3] and any(1 in c and 2 in s for c, s in out["beads"])
        for out in result["smoke"].values()
    )
    return result["beads"] > 0 and result["link_f"] >= min_link_f and smoke_ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", help="output folder of spacy package (holds <lang>_<name>-<version>/dist/)")
    ap.add_argument("--name", default="simalign_web")
    ap.add_argument("--version", default="0.1.0")
    ap.add_argument("--lang", default="de")
    ap.add_argument("--gold", required=True, help="pair JSONL with gold: a pair from it is aligned")
    ap.add_argument("--output", required=True, help="JSON report to write")
    ap.add_argument("--min-link-f", type=float, default=0.5)
    ap.add_argument(
        "--smoke-langs",
        default="nl,fr,en",
        help="also install these languages' packages (where built) and align a short pair in each",
    )
    ap.add_argument(
        "--constraints",
        default=str(Path(spacy_simalign.__file__).resolve().parent.parent / "constraints.txt"),
        help="pip constraints (default: constraints.txt of the spacy-simalign source tree)",
    )
    args = ap.parse_args(argv)
    constraints = Path(args.constraints)
    plugin = sorted(Path(args.packages).glob(f"spacy_simalign-{spacy_simalign.__version__}-*.whl"))
    if not plugin:
        raise SystemExit(
            f"no spacy_simalign-{spacy_simalign.__version__} wheel in {args.packages}: run the "
            "package step first (python project/plugin_wheel.py PACKAGES_DIR)"
        )
    package = f"{args.lang}_{args.name}"
    dist = Path(args.packages) / f"{package}-{args.version}" / "dist"
    wheels = sorted(dist.glob("*.whl")) or sorted(dist.glob("*.tar.gz"))
    if not wheels:
        raise SystemExit(f"no built package in {dist}: run spacy package first")
    smoke = {}
    for lang in [x.strip() for x in args.smoke_langs.split(",") if x.strip() and x.strip() != args.lang]:
        found = sorted((Path(args.packages) / f"{lang}_{args.name}-{args.version}" / "dist").glob("*.whl"))
        if found:
            smoke[lang] = found[0]
    report = {"package": package, "version": args.version, "artifact": wheels[0].name, "timings_s": {}}
    timings = report["timings_s"]
    total = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="simalign-pkgcheck-") as tmp:
        tmp = Path(tmp)
        report["plugin_wheel"] = plugin[0].name
        timings["create_venv"] = run([sys.executable, "-m", "venv", str(tmp / "venv")])
        py = tmp / "venv" / "bin" / "python"
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "SPACY_SIMALIGN_CACHE", "VIRTUAL_ENV", "PYTHONHOME")
        }
        env["HF_HUB_OFFLINE"] = "1"
        pip = [str(py), "-m", "pip", "install", "-q", "-c", str(constraints)]
        timings["pip_install_package"] = run(
            pip + [str(plugin[0].resolve()), str(wheels[0].resolve())], env=env, cwd=tmp
        )
        if smoke:
            timings["pip_install_other_languages"] = run(
                pip + [str(plugin[0].resolve())] + [str(w.resolve()) for w in smoke.values()], env=env, cwd=tmp
            )
        (tmp / "pair.json").write_text(json.dumps(pick_pair(Path(args.gold))), encoding="utf-8")
        (tmp / "check.py").write_text(CHECK, encoding="utf-8")
        start = time.perf_counter()
        proc = subprocess.run(
            [str(py), "check.py", package, "pair.json", *smoke],
            cwd=tmp,
            env=env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        timings["load_and_align"] = time.perf_counter() - start
        if proc.returncode:
            sys.stderr.write(proc.stderr[-5000:])
            raise SystemExit("the installed package failed to load or align")
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        freeze = subprocess.run([str(py), "-m", "pip", "freeze"], env=env, text=True, stdout=subprocess.PIPE).stdout
        cleanup = time.perf_counter()
    timings["remove_venv"] = time.perf_counter() - cleanup
    report["check"] = result
    wanted = ("spacy", "torch", "spacy-transformers", "spacy-simalign", package.replace("_", "-"))
    report["installed"] = sorted(
        without_path(line)
        for line in freeze.splitlines()
        if line.split("==")[0].split(" @ ")[0].strip().lower().replace("_", "-") in wanted
    )
    timings["total"] = time.perf_counter() - total
    report["timings_s"] = {k: round(v, 1) for k, v in timings.items()}
    installed_in_venv = result["plugin"].startswith(str(tmp))
    # where the plugin was imported from, relative to the fresh venv: the report holds no path of this machine
    result["plugin"] = os.path.relpath(result["plugin"], tmp) if installed_in_venv else "outside the fresh venv"
    ok = installed_in_venv and aligned_as_expected(result, args.min_link_f)
    report["ok"] = ok
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    if not ok:
        print("error: the installed package did not align the pair as expected", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
