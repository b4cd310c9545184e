"""What the simalign_anonymiser catches on the hand-annotated samples in
tests/data/anonymisation/ (one per language, and categories.jsonl: e-mail, web addresses,
international phone numbers, IBANs, health, party membership), patterns only or with a trained NER where one
is installed; and how many published Amsterdam texts (already anonymised) it would change.

    cd benchmarks && spacy project run corpus-anonymiser
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/run_anonymiser_sample.py [--data ../shared/data]"""

import argparse
import os
import sys
from pathlib import Path

from script_output import add_output_option, run_main
from spacy.util import is_package

from spacy_simalign.corpus.anonymise import (
    TRAINED_PIPELINES,
    anonymise_rows,
    anonymiser_pipeline,
    category_recall,
    evaluate_sample,
    format_category_recall,
    format_evaluation,
)
from spacy_simalign.corpus.sentence_pairs import read_amsterdam_csv

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DATA), help="the shared data folder")
    add_output_option(parser)
    args = parser.parse_args(argv)
    pipelines = {lang: anonymiser_pipeline(lang, use_ner=False) for lang in ("nl", "de", "fr", "en")}  # patterns only
    for lang in pipelines:
        sample = ROOT / "tests" / "data" / "anonymisation" / f"{lang}.jsonl"
        n = sum(1 for line in open(sample, encoding="utf-8") if line.strip())
        print(f"\n[{lang}] {n} sentences, patterns only")
        print(format_evaluation(evaluate_sample(pipelines[lang], str(sample))))
        installed = [m for m in TRAINED_PIPELINES[lang] if is_package(m)]
        if installed:
            print(f"[{lang}] with NER of {installed[0]}")
            print(format_evaluation(evaluate_sample(anonymiser_pipeline(lang, installed[0]), str(sample))))
        else:
            print(f"[{lang}] no trained pipeline installed ({', '.join(TRAINED_PIPELINES[lang])}): NER not measured")

    counts = category_recall(str(ROOT / "tests" / "data" / "anonymisation" / "categories.jsonl"), pipelines)
    print("\ncontact data and special categories (categories.jsonl), patterns only: recall (caught/lines)\n")
    print(format_category_recall(counts))

    rows = read_amsterdam_csv(str(Path(args.data) / "amsterdam-municipal-nl" / "complex-simple-v1-anonymized.csv"))
    out = anonymise_rows(rows, "nl", pipelines["nl"])
    changed = [(a, b) for a, b in zip(rows, out) for x, y in ((a.complex, b.complex), (a.simple, b.simple)) if x != y]
    print(f"\npublished Amsterdam corpus (already anonymised): {len(changed)} of {2 * len(rows)} texts changed")
    for a, b in changed[:5]:
        print(f"- {b.complex[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
