"""Evaluate the classic aligners (MASSAlign, CATS C3G, TF-IDF) and the paragraph aligners
on DEplain-web dev pairs, and print markdown tables beside the published DEplain figures.

    cd benchmarks && spacy project run eval-lexical     # with --use
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_lexical.py [PAIRS.jsonl] [--use]

Sentence methods: link and bead-text P/R/F1 pooled over documents (scoring.AlignmentScorer).
Paragraph methods: paragraph-pair P/R/F1, a gold pair being any paragraph pair holding a
gold sentence link. --use adds the Jiang et al. paragraph aligner over multilingual USE
similarity (set SPACY_SIMALIGN_CACHE to reuse cached embeddings)."""

import argparse
import os
import sys
import time
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.aligners import lexical_aligners as lexical
from spacy_simalign.aligners import paragraphs
from spacy_simalign.aligners.scoring import PRF, AlignmentScorer, links_of, paragraph_pairs
from spacy_simalign.formats.pair_jsonl import read_pairs
from spacy_simalign.similarity.backends import TfidfSimilarity

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_PAIRS = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"

# Published DEplain baselines re-scored on these 82 documents (shared/data/README.md).
PUBLISHED = {"massalign": (0.822, 0.864), "cats-c3g (1:1 beads, as released)": (0.817, 0.696)}


def sentence_methods():
    c3g = TfidfSimilarity("char", 3)
    return {
        "massalign": lexical.make_massalign().align,
        "massalign (no paragraph step)": lexical.make_massalign(use_paragraphs=False).align,
        "cats-c3g": lexical.make_cats(c3g, "closest").align,
        "cats-c3g (1:1 beads, as released)": lexical.make_cats(c3g, "closest", group=False).align,
        "cats-c3g-seq": lexical.make_cats(c3g, "closest-seq").align,
        "tfidf >= 0.3 in tfidf paragraphs": lexical.make_tfidf_aligner().align,
        "tfidf >= 0.3, whole document": lexical.make_tfidf_aligner(use_paragraphs=False).align,
    }


def paragraph_methods(use: bool):
    tfidf = TfidfSimilarity("word", 1)
    out = {
        "jiang (tfidf)": paragraphs.make_jiang_paragraphs(tfidf).align_paragraphs,
        "jiang-wiki (tfidf)": paragraphs.make_jiang_wiki_paragraphs(tfidf).align_paragraphs,
        "massalign vicinity": paragraphs.make_massalign_paragraphs().align_paragraphs,
        "tfidf best match": paragraphs.make_tfidf_paragraphs().align_paragraphs,
    }
    if use:
        from spacy_simalign.similarity.backends import make_use_similarity

        sim = make_use_similarity()
        out["jiang (USE)"] = paragraphs.make_jiang_paragraphs(sim).align_paragraphs
        out["jiang-wiki (USE)"] = paragraphs.make_jiang_wiki_paragraphs(sim).align_paragraphs
    return out


def fmt(prf) -> str:
    return f"{prf.p:.3f} | {prf.r:.3f} | {prf.f:.3f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="?", default=str(DEFAULT_PAIRS))
    parser.add_argument("--use", action="store_true", help="also run Jiang over USE similarity")
    add_output_option(parser)
    args = parser.parse_args(argv)
    records = list(read_pairs(args.pairs))
    docs = [(r, r.side("complex"), r.side("simple")) for r in records]

    print(f"DEplain-web dev: {len(docs)} documents, {args.pairs}\n")
    corpora = sorted({r.raw.get("corpus", "?") for r, _, _ in docs})
    print(
        "| method | link P | link R | link F1 | bead P | bead R | bead F1 | published link / bead F1 | "
        + " | ".join(f"link F1 {name}" for name in corpora)
        + " | s |"
    )
    print("|---|---|---|---|---|---|---|---|" + "---|" * len(corpora) + "---|")
    for name, method in sentence_methods().items():
        scorer, start = AlignmentScorer(), time.time()
        by_corpus = {corpus: AlignmentScorer() for corpus in corpora}
        for record, c, s in docs:
            beads = method(c, s)
            scorer.add(record.gold, beads, c.sentences, s.sentences)
            by_corpus[record.raw.get("corpus", "?")].add(record.gold, beads, c.sentences, s.sentences)
        pub = PUBLISHED.get(name)
        pub_text = f"{pub[0]:.3f} / {pub[1]:.3f}" if pub else ""
        per_corpus = " | ".join(f"{by_corpus[corpus].link.f:.3f}" for corpus in corpora)
        print(
            f"| {name} | {fmt(scorer.link)} | {fmt(scorer.bead_text)} | {pub_text} | {per_corpus} | "
            f"{time.time() - start:.1f} |"
        )

    print("\n| paragraph method | P | R | F1 | s |")
    print("|---|---|---|---|---|")
    for name, method in paragraph_methods(args.use).items():
        prf, start = PRF(), time.time()
        for record, c, s in docs:
            gold = paragraph_pairs(links_of(record.gold), c.paragraph_of(), s.paragraph_of())
            pred = paragraphs.link_pairs(method(c, s))
            prf.add(len(gold & pred), len(pred), len(gold))
        print(f"| {name} | {fmt(prf)} | {time.time() - start:.1f} |")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    sys.exit(run_main(main))
