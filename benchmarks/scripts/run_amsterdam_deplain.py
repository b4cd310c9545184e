"""The Amsterdam corpus path run on DEplain-web dev (German stands in for Dutch): candidate
rows from TF-IDF best match inside aligned paragraphs (and from the plugin's tfidf and
massalign aligners), rows before and after each post-processing rule, each rule switched
off in turn, and how many kept rows the manual alignment confirms.

    cd benchmarks && spacy project run corpus-amsterdam-deplain
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/run_amsterdam_deplain.py [--out DIR] [--data ../shared/data]

A row is *confirmed* when every complex x simple sentence link it stands for is a gold
link; *coverage* is the share of gold beads with a complex side whose complex sentences
appear in some kept row."""

import argparse
import os
import sys
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.corpus.amsterdam import RULE_NAMES, build_corpus, format_counts
from spacy_simalign.corpus.amsterdam_candidates import CandidateSettings
from spacy_simalign.corpus.export import CardInfo, export_corpus
from spacy_simalign.formats.pair_jsonl import read_pairs

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def confirmed(rows, records):
    gold = {r.id: {link for b in r.gold for link in b.links()} for r in records}
    ok = sum(all((c, s) in gold[r.doc_id] for c in r.complex_ids for s in r.simple_ids) for r in rows)
    covered = {(r.doc_id, c) for r in rows for c in r.complex_ids}
    beads = [(rec.id, b) for rec in records for b in rec.gold if b.complex and b.simple]
    hit = sum(any((doc, c) in covered for c in b.complex) for doc, b in beads)
    return ok / max(len(rows), 1), hit / max(len(beads), 1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also export the default corpus to this folder")
    parser.add_argument("--data", default=str(DATA), help="the shared data folder")
    add_output_option(parser)
    args = parser.parse_args(argv)
    records = list(read_pairs(str(Path(args.data) / "deplain-web-dev" / "pairs.jsonl")))

    rows, report = build_corpus(records)
    print(
        f"DEplain-web dev: {report.documents} documents, {report.paragraph_pairs} aligned paragraph pairs, "
        f"{report.candidates} candidate rows (TF-IDF best match, both directions)\n"
    )
    print(format_counts(report.counts))
    precision, coverage = confirmed(rows, records)
    print(f"\nkept rows confirmed by gold: {precision:.3f}; gold beads covered: {coverage:.3f}\n")

    print("Candidates from the plugin's aligners (one simple sentence per row, then the rules):")
    for method in ("tfidf", "massalign"):
        m_rows, m_report = build_corpus(records, method=method)
        p, c = confirmed(m_rows, records)
        print(f"\n[{method}] candidate rows {m_report.candidates}")
        print(format_counts(m_report.counts))
        print(f"kept rows confirmed by gold: {p:.3f}; gold beads covered: {c:.3f}")

    print("\nEach rule switched off in turn (default candidates):")
    print(f"{'off':<12} {'rows':>6} {'confirmed':>10} {'coverage':>9}")
    for name in ("none",) + RULE_NAMES:
        a_rows, _ = build_corpus(records, skip=() if name == "none" else (name,))
        p, c = confirmed(a_rows, records)
        print(f"{name:<12} {len(a_rows):>6} {p:>10.3f} {c:>9.3f}")

    print("\nThresholds of the default candidates (paragraph, sentence):")
    print(f"{'para':>5} {'sent':>5} {'rows':>6} {'confirmed':>10} {'coverage':>9}")
    for para in (0.1, 0.2):
        for sent in (0.2, 0.3, 0.4, 0.5):
            t_rows, _ = build_corpus(records, settings=CandidateSettings(para, sent))
            p, c = confirmed(t_rows, records)
            print(f"{para:>5} {sent:>5} {len(t_rows):>6} {p:>10.3f} {c:>9.3f}")

    if args.out:
        info = CardInfo(
            "deplain-web-dev-amsterdam-style",
            "CC BY 4.0 (Alumniportal) / CC BY-SA 3.0 (bible_verified)",
            ["de"],
            "TF-IDF best match inside aligned paragraphs, then the Amsterdam post-processing",
            "DEplain-web (Stodden et al., 2023), open test part",
            tables={"Rows before and after each rule": format_counts(report.counts)},
        )
        print("\nwrote " + ", ".join(export_corpus(rows, args.out, ("jsonl", "csv"), info)))
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
