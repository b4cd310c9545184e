"""The bead decoder's candidate gap, penalty and anchor weight chosen without the documents they
align: every setting of a small grid aligns every translation document once, then each held-out
part of a corpus is scored with the setting that is best on the other documents, each corpus
weighted the same in the choice (NTREX's 738 one-to-one documents must not outweigh the two
others). Two decoders: BeadDP.v1 (the settings of anchor weight 0, which are v1's decoder) and
BeadDP.v3 (the whole grid).

    SPACY_SIMALIGN_CACHE=.cache/emb PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/eval_translations_lodo.py

Held-out parts: the Text+Berg dev article (chosen on TransRead and NTREX), each TransRead dev
novel (chosen on the other two novels, Text+Berg and NTREX) and 5 folds of NTREX by document (a
document's six language pairs in one fold). The figures beside them are the shipped settings
(BeadDP.v1: 0.2 / 0.075, chosen on Text+Berg and TransRead dev; BeadDP.v3: 0.2 / 0.1 / 0.05,
chosen on the three sets together: in-sample there). Strict = bead F1, a predicted bead counts
only if it equals a gold bead; link = F1 of the sentence links."""

import argparse
import itertools
import re
import sys
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from eval_translations import scores as translation_scores
from script_output import add_output_option, run_main, write_json

from spacy_simalign.aligners.bead_dp import SETTINGS, V1_SETTINGS, make_bead_dp_v3
from spacy_simalign.formats.pair_jsonl import read_pairs
from spacy_simalign.similarity.backends import USESimilarity

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
GAPS = (0.2, 0.5)
PENALTIES = (0.025, 0.05, 0.075, 0.1, 0.125)
ANCHOR_WEIGHTS = (0.0, 0.02, 0.05, 0.1)
DECODERS = ("BeadDP.v1", "BeadDP.v3")
NTREX_PAIRS = ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")
NTREX_FOLDS = 5


def corpora(data: Path) -> Dict[str, list]:
    """{corpus: its pair records} of the three translation sets."""
    return {
        "textberg": list(read_pairs(str(data / "textberg-dev-de-fr" / "pairs.jsonl"))),
        "transread": list(read_pairs(str(data / "transread-dev-en-fr" / "pairs.jsonl"))),
        "ntrex": [r for p in NTREX_PAIRS for r in read_pairs(str(data / "ntrex-news" / f"{p}.jsonl"))],
    }


def held_out_parts(sets: Dict[str, list]) -> List[Tuple[str, str, List[int]]]:
    """(corpus, part name, record positions) of each held-out part."""
    parts = [("textberg", "the article", list(range(len(sets["textberg"]))))]
    parts += [("transread", r.id, [k]) for k, r in enumerate(sets["transread"])]
    document = [re.sub(r"^ntrex-[a-z]{2}-[a-z]{2}-", "", r.id) for r in sets["ntrex"]]
    keys = sorted(set(document))
    fold_of = {key: n % NTREX_FOLDS for n, key in enumerate(keys)}
    for fold in range(NTREX_FOLDS):
        positions = [k for k, key in enumerate(document) if fold_of[key] == fold]
        parts.append(("ntrex", f"fold {fold + 1}", positions))
    return parts


def scores(records: Sequence, preds: Sequence) -> Tuple[float, float]:
    """(strict bead F1, link F1), pooled over the records."""
    pooled = translation_scores(records, preds)
    return pooled["strict"], pooled["f"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="the shared data folder (default ../shared/data)")
    ap.add_argument("--json", default=None, help="also write the figures here")
    add_output_option(ap)
    args = ap.parse_args(argv)
    sets = corpora(Path(args.data))
    encoder = USESimilarity()
    grid = list(itertools.product(GAPS, PENALTIES, ANCHOR_WEIGHTS))
    grids = {"BeadDP.v1": [g for g in grid if not g[2]], "BeadDP.v3": grid}
    shipped = {
        "BeadDP.v1": (V1_SETTINGS["candidate_gap"], V1_SETTINGS["candidate_penalty"], 0.0),
        "BeadDP.v3": (SETTINGS["candidate_gap"], SETTINGS["candidate_penalty"], SETTINGS["anchor_weight"]),
    }
    preds: Dict[Tuple[float, float, float], Dict[str, list]] = {}
    for gap, penalty, weight in grid:
        aligner = make_bead_dp_v3(encoder, candidate_gap=gap, candidate_penalty=penalty, anchor_weight=weight)
        preds[gap, penalty, weight] = {
            name: [aligner.align(r.side("complex"), r.side("simple")) for r in records]
            for name, records in sets.items()
        }
        print(f"gap {gap} penalty {penalty} anchor weight {weight}: aligned", file=sys.stderr, flush=True)

    scored: Dict[tuple, Tuple[float, float]] = {}  # each held-out part asks again for the same documents

    def strict_on(setting, corpus, positions):
        key = (setting, corpus, tuple(positions))
        if key not in scored:
            records = sets[corpus]
            scored[key] = scores([records[k] for k in positions], [preds[setting][corpus][k] for k in positions])
        return scored[key]

    rows, table = [], {}
    for decoder in DECODERS:
        by_corpus: Dict[str, list] = {}
        for corpus, part, positions in held_out_parts(sets):
            held = set(positions)

            def fitting_score(setting):  # the mean over corpora of the strict F1 on the documents not held out
                values = []
                for name, records in sets.items():
                    rest = [k for k in range(len(records)) if not (name == corpus and k in held)]
                    if rest:
                        values.append(strict_on(setting, name, rest)[0])
                return sum(values) / len(values)

            chosen = max(grids[decoder], key=fitting_score)  # the first of equals, in the grid's order
            rows.append(
                {
                    "decoder": decoder,
                    "corpus": corpus,
                    "part": part,
                    "chosen": list(chosen),
                    "documents": len(positions),
                }
            )
            by_corpus.setdefault(corpus, []).append((positions, chosen))
        for corpus, folds in by_corpus.items():
            records = sets[corpus]
            held_records, held_preds, shipped_preds = [], [], []
            for positions, chosen in folds:
                held_records += [records[k] for k in positions]
                held_preds += [preds[chosen][corpus][k] for k in positions]
                shipped_preds += [preds[shipped[decoder]][corpus][k] for k in positions]
            table.setdefault(decoder, {})[corpus] = {
                "held_out": scores(held_records, held_preds),
                "shipped": scores(held_records, shipped_preds),
            }
    print("Bead decoder, settings chosen without the held-out documents (strict / link F1):")
    print()
    print(
        "| decoder | corpus | chosen per held-out part (gap / penalty / anchor weight) | strict / link | shipped (in-sample) |"
    )
    print("|---|---|---|---|---|")
    for decoder in DECODERS:
        for corpus, figures in table[decoder].items():
            chosen = ", ".join(
                " / ".join(map(str, r["chosen"])) for r in rows if r["corpus"] == corpus and r["decoder"] == decoder
            )
            held, ship = figures["held_out"], figures["shipped"]
            print(
                f"| {decoder} | {corpus} | {chosen} | {held[0]:.3f} / {held[1]:.3f} | {ship[0]:.3f} / {ship[1]:.3f} |"
            )
    print()
    print(
        f"Grid: gap {', '.join(map(str, GAPS))} x penalty {', '.join(map(str, PENALTIES))}"
        f" x anchor weight {', '.join(map(str, ANCHOR_WEIGHTS))} (BeadDP.v1: weight 0). Shipped: "
        + "; ".join(f"{d} {' / '.join(map(str, shipped[d]))}" for d in DECODERS)
        + "."
    )
    write_json(args.json, {"parts": rows, "table": table})
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
