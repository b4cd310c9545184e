"""Sentence-boundary precision/recall/F1 of the rule-based segmenter, per language.

Gold sentences are joined into raw text (paragraphs with a blank line, sentences
with a space) and re-segmented with spacy_simalign.segmentation.rules.segment:
German on both sides of the DEplain-web dev pairs, Dutch on the Amsterdam CSV
(each document's sentences of one column joined), French and English on the
small hand-written samples in tests/data/segmentation/. The rules were written
looking at DEplain errors; Klexikon (sentence lines from an automatic splitter, so
silver) scored F1 0.9925 / 0.9902 (Klexikon / Wikipedia) before its errors were
looked at, which then suggested a few ordinal and "v. Chr." rules. "all" counts every
sentence start but the first (paragraph starts included), "in-para" only those
inside a paragraph.

    cd benchmarks && spacy project run eval-segmentation
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_segmentation.py [--data ../shared/data]
"""

import argparse
import os
import sys
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.evaluation import segmentation as ev

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data")
    parser.add_argument("--data", type=Path, default=Path(default), help="the shared data folder")
    add_output_option(parser)
    args = parser.parse_args(argv)
    deplain = args.data / "deplain-web-dev" / "pairs.jsonl"
    amsterdam = args.data / "amsterdam-municipal-nl" / "complex-simple-v1-anonymized.csv"
    klexikon = args.data / "klexikon-validation"
    samples = ROOT / "tests" / "data" / "segmentation"
    rows = [
        ("de", "DEplain-web dev, both sides", lambda: ev.deplain_documents(deplain), {}),
        ("de", "  Alumniportal-2020 only", lambda: ev.deplain_documents(deplain, "Alumniportal-2020"), {}),
        ("de", "  bible_verified only", lambda: ev.deplain_documents(deplain, "bible_verified"), {}),
        ("de", "  all, no colon rule", lambda: ev.deplain_documents(deplain), {"colon_boundaries": False}),
        ("de", "Klexikon validation", lambda: ev.klexikon_documents(klexikon / "klexikon"), {}),
        ("de", "  Wikipedia side", lambda: ev.klexikon_documents(klexikon / "wiki"), {}),
        ("nl", "Amsterdam, Complex column", lambda: ev.amsterdam_documents(amsterdam, "Complex"), {}),
        ("nl", "  Simple column (multi-sent.)", lambda: ev.amsterdam_documents(amsterdam, "Simple"), {}),
        ("fr", "hand-written sample", lambda: ev.sample_documents(samples / "fr.jsonl"), {}),
        ("en", "hand-written sample", lambda: ev.sample_documents(samples / "en.jsonl"), {}),
    ]
    print(f"{'lang':4} {'data':28} {'docs':>5} {'gold':>6} {'P':>6} {'R':>6} {'F1':>6} {'F1 in-para':>10}")
    for lang, name, load, options in rows:
        docs = load()
        full = ev.score_documents(docs, lang, **options)
        inner = ev.score_documents(docs, lang, within_paragraphs=True, **options)
        print(
            f"{lang:4} {name:28} {len(docs):5d} {full.gold:6d} {full.precision:6.3f} {full.recall:6.3f} "
            f"{full.f1:6.3f} {inner.f1:10.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
