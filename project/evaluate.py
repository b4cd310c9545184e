"""Score a trained alignment pipeline (or a lexical method) on a gold corpus: link,
bead-text and paragraph P/R/F1 through the library's scorer, written as JSON.

    python project/evaluate.py MODEL GOLD OUTPUT.json [--method NAME] [--lang de] [--exclude-identical]

MODEL is a spaCy pipeline folder or an installed package name; with --method, MODEL is
ignored ("-") and a blank pipeline with that sentence method is scored instead (baselines).
GOLD is a DocBin of Doc pairs (project/convert.py) or pair JSONL with gold. --exclude-identical scores
links by Wiki-Manual's Task 1 protocol, as `evaluate --exclude-identical` does (identical sentence
pairs left out of gold and prediction)."""

import argparse
import json
import sys
import time
from pathlib import Path

import spacy
from spacy.training import Example

from spacy_simalign.aligners.methods import method_config
from spacy_simalign.core.errors import InputError
from spacy_simalign.formats.jsonl import atomic_output
from spacy_simalign.pipeline.build import alignment_pipeline
from spacy_simalign.pipeline.readers import PairCorpus
from spacy_simalign.pipeline.scorer import score_examples

METRICS = ("link", "bead_text", "paragraph")


def evaluate(nlp, gold: str, exclude_identical: bool = False) -> dict:
    """Run the pipeline on the corpus's predicted Docs and score them against the references
    (`exclude_identical`: links by the Task 1 protocol, scoring.AlignmentScorer)."""
    examples = list(PairCorpus(gold)(nlp))
    if not examples:  # scores over nothing would read as F1 0.000
        raise InputError("no documents to evaluate on (an empty test split?)", gold)
    start = time.perf_counter()
    predicted = list(nlp.pipe(eg.predicted for eg in examples))
    seconds = time.perf_counter() - start
    scored = [Example(doc, eg.reference) for doc, eg in zip(predicted, examples)]
    flat = score_examples(scored, exclude_identical=exclude_identical)
    out = {
        metric: {k: flat[f"align_{metric}_{k}"] for k in ("p", "r", "f") if f"align_{metric}_{k}" in flat}
        for metric in METRICS
    }
    out.update(docs=len(examples), seconds=round(seconds, 2), scores=flat)
    if exclude_identical:
        out["protocol"] = "link: identical sentence pairs left out (Wiki-Manual Task 1)"
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="pipeline folder or package name ('-' with --method)")
    ap.add_argument("gold", help="gold corpus: .spacy DocBin of Doc pairs or pair JSONL")
    ap.add_argument("output", help="metrics JSON to write")
    ap.add_argument("--method", default=None, help="score this sentence method on a blank pipeline instead")
    ap.add_argument("--lang", default="de", help="language of the blank pipeline (with --method)")
    ap.add_argument(
        "--exclude-identical",
        action="store_true",
        help="link P/R/F1 by Wiki-Manual's Task 1 protocol: links between identical sentences left out of both sides",
    )
    ap.add_argument(
        "--links",
        choices=("plain", "task1"),
        default="plain",
        help="task1: as --exclude-identical (the project's vars.link_scoring, since a --vars value may not start with -)",
    )
    args = ap.parse_args(argv)
    args.exclude_identical = args.exclude_identical or args.links == "task1"
    try:
        if args.method:
            nlp = alignment_pipeline(args.lang, method_config(args.method).to_str())
        else:
            if not Path(args.model).exists() and not spacy.util.is_package(args.model):
                raise InputError("no such pipeline folder or package", args.model)
            nlp = spacy.load(args.model)
        scores = evaluate(nlp, args.gold, args.exclude_identical)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    scores["model"] = f"method {args.method}" if args.method else args.model
    scores["gold"] = args.gold
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(args.output) as handle:
        json.dump(scores, handle, indent=2)
        handle.write("\n")
    table = " | ".join(
        f"{m} P {scores[m]['p']:.3f} R {scores[m]['r']:.3f} F1 {scores[m]['f']:.3f}" for m in METRICS if scores[m]
    )
    print(f"{scores['model']} on {scores['docs']} documents ({scores['seconds']} s): {table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
