"""Orientation checks of the shipped CRF weights outside their German same-language setting
(in-sample or silver, not a held-out evaluation):
1. Dutch: the Amsterdam municipal pairs as silver documents (per Document ID: the distinct
   Complex rows and the distinct Simple rows in order, one row = one unit, the CSV's row pairs
   as gold links);
2. cross-lingual mode: the DEplain-web dev pairs with the simple side declared English, so that
   the lexical features are masked (the weights were trained on these documents): once through
   the CRF's cross-lingual mode (translations = "crf"), once as `align` does by default, where
   pairs in two languages go to the bead decoder (bead_dp.py; pair_kind "auto").

    cd benchmarks && SPACY_SIMALIGN_CACHE=../.cache/emb spacy project run eval-crf-transfer
    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_crf_transfer.py [--data ../shared/data]
"""

import argparse
import sys
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.aligners.crf.aligner import CRFAligner
from spacy_simalign.aligners.scoring import AlignmentScorer
from spacy_simalign.core.structures import Side, beads_from_links
from spacy_simalign.corpus.sentence_pairs import read_amsterdam_csv
from spacy_simalign.formats.pair_jsonl import read_training_pairs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"


def amsterdam_documents(path: Path):
    """(complex Side, simple Side, gold beads) per Document ID of the Amsterdam CSV."""
    by_doc = {}
    for row in read_amsterdam_csv(str(path)):
        by_doc.setdefault(row.doc_id, []).append(row)
    for rows in by_doc.values():
        complex_ids = {t: k for k, t in enumerate(dict.fromkeys(r.complex for r in rows))}
        simple_ids = {t: k for k, t in enumerate(dict.fromkeys(r.simple for r in rows))}
        links = sorted({(complex_ids[r.complex], simple_ids[r.simple]) for r in rows})
        yield (
            Side.from_paragraphs([list(complex_ids)], "nl"),
            Side.from_paragraphs([list(simple_ids)], "nl"),
            beads_from_links(links),
        )


def scores(aligner, documents):
    scorer = AlignmentScorer()
    for complex_side, simple_side, gold in documents:
        scorer.add(gold, aligner.align(complex_side, simple_side), complex_side.sentences, simple_side.sentences)
    s = scorer.scores()
    return s["link"]["f"], s["bead_text"]["f"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="the shared data folder")
    add_output_option(ap)
    args = ap.parse_args(argv)
    data = Path(args.data)
    aligner = CRFAligner.default()
    dutch = list(amsterdam_documents(data / "amsterdam-municipal-nl" / "complex-simple-v1-anonymized.csv"))
    dev = read_training_pairs(str(data / "deplain-web-dev" / "pairs.jsonl"))
    crossed = [(p.complex, Side(p.simple.sentences, p.simple.paragraphs, "en"), p.gold) for p in dev]
    print(f"{'check':58s} {'docs':>5s} {'link F1':>8s} {'bead-text F1':>13s}")
    crf_only = CRFAligner.default(encoder=aligner.encoder)
    crf_only.set_translations("crf")
    routed = sum(aligner.is_translation(c, s) for c, s, _ in crossed)
    for name, docs, used in (
        ("Amsterdam nl silver, shipped weights", dutch, aligner),
        ("DEplain-web dev, simple side en, CRF cross-lingual mode", crossed, crf_only),
        (f"  the same, default ({routed} pairs to the bead decoder)", crossed, aligner),
    ):
        lf, bf = scores(used, docs)
        print(f"{name:58s} {len(docs):5d} {lf:8.3f} {bf:13.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
