"""Wiki-Manual's Task 1 measure (Jiang et al. 2020): link F1 over complex x simple sentence links
(beads expanded), leaving out of both gold and prediction every link whose two sentences are the
same string after stripping whitespace. Also the per-fold figures (documents in 5 seeded folds) for
settings chosen on four folds and scored on the fifth.

    python lab/scripts/task1.py GOLD.jsonl PRED.jsonl [--keep-identical] [--per-doc]"""

import argparse
import json
import sys
from typing import Dict, Iterable, List, Set, Tuple

Link = Tuple[int, int]


def sentences(side: dict) -> List[str]:
    return [s for para in side["paragraphs"] for s in para]


def links_of(beads: Iterable) -> Set[Link]:
    out: Set[Link] = set()
    for bead in beads:
        c, s = (bead["complex"], bead["simple"]) if isinstance(bead, dict) else bead
        out.update((i, j) for i in c for j in s)
    return out


def task1_links(record: dict, beads, keep_identical: bool = False) -> Set[Link]:
    links = links_of(beads)
    if keep_identical:
        return links
    cs, ss = sentences(record["complex"]), sentences(record["simple"])
    return {(i, j) for i, j in links if cs[i].strip() != ss[j].strip()}


def counts(gold_path: str, pred_path: str, keep_identical: bool = False) -> Dict[str, Tuple[int, int, int]]:
    """Per document id: (true positives, predicted, gold) links."""
    gold = [json.loads(line) for line in open(gold_path, encoding="utf-8") if line.strip()]
    pred = {}
    for line in open(pred_path, encoding="utf-8"):
        if line.strip():
            obj = json.loads(line)
            pred[obj["id"]] = obj["alignments"]
    out = {}
    for rec in gold:
        g = task1_links(rec, rec["gold"], keep_identical)
        p = task1_links(rec, pred.get(rec["id"], []), keep_identical)
        out[rec["id"]] = (len(g & p), len(p), len(g))
    return out


def prf(tp: int, np_: int, ng: int) -> Tuple[float, float, float]:
    p = tp / np_ if np_ else 0.0
    r = tp / ng if ng else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def total(c: Dict[str, Tuple[int, int, int]], ids=None) -> Tuple[float, float, float]:
    ids = c if ids is None else ids
    return prf(*(sum(c[i][k] for i in ids) for k in range(3)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("gold")
    ap.add_argument("pred")
    ap.add_argument("--keep-identical", action="store_true")
    ap.add_argument("--per-doc", action="store_true")
    a = ap.parse_args(argv)
    c = counts(a.gold, a.pred, a.keep_identical)
    if a.per_doc:
        for i, v in c.items():
            print(i, v, "%.3f %.3f %.3f" % prf(*v))
    p, r, f = total(c)
    print(f"Task 1 link P {p:.3f} R {r:.3f} F1 {f:.3f} ({len(c)} documents)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
