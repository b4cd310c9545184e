"""Gold pairs (pair JSONL, or DEplain plan CSV files / a folder of them) to spaCy corpora:
train / dev / test DocBins of Doc pairs, split by document with a fixed seed.

    python project/convert.py GOLD OUTPUT_DIR [--lang de] [--dev 0.1] [--test 0.2] [--seed 0] [--limit N]

Writes OUTPUT_DIR/{train,dev,test}.spacy and OUTPUT_DIR/split.json (the ids of each part); from a
pair JSONL file, also OUTPUT_DIR/{train,dev,test}.jsonl, each part's lines as they were (what the
`adapt` command and workflow read).
Bad input: one line `error: FILE:LINE: message`, exit status 2, nothing written."""

import argparse
import glob
import json
import random
import sys
from pathlib import Path
from typing import Dict, List

import spacy
from spacy.tokens import DocBin

from spacy_simalign.core.errors import InputError
from spacy_simalign.formats.deplain import plan_files, read_plan
from spacy_simalign.formats.jsonl import atomic_output, read_jsonl, write_jsonl
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.pipeline import doc_pair as pair
from spacy_simalign.pipeline.readers import gold_doc, read_gold_docs

PARTS = ("train", "dev", "test")


def read_gold(nlp, path: Path, lang: str, limit: int) -> List:
    """Reference Doc pairs from pair JSONL, a DocBin, or DEplain plan CSV file(s)."""
    is_plans = path.suffix.lower() == ".csv" or (path.is_dir() and glob.glob(str(path / "*.csv")))
    if is_plans:
        files = plan_files([str(path)])
        if limit:
            files = files[:limit]
        return [gold_doc(nlp, parse_pair(read_plan(file, lang=lang), file, 0), file) for file in files]
    return list(read_gold_docs(nlp, path, limit))


def split_ids(ids: List[str], dev: float, test: float, seed: int) -> Dict[str, List[str]]:
    """Shuffle documents with the seed; the first `test` share is test, the next `dev` share dev.
    A part asked for holds at least one document (an empty test split would be scored as F1
    0.000 on 0 documents), and train keeps at least one: fewer documents are an error. With nothing
    held out, train is every document in the gold's order (the folds of adapt-folds follow it)."""
    if not dev and not test:
        return {"test": [], "dev": [], "train": list(ids)}
    order = list(ids)
    random.Random(seed).shuffle(order)
    n_test = max(1, int(round(len(order) * test))) if test > 0 else 0
    n_dev = max(1, int(round(len(order) * dev))) if dev > 0 else 0
    if n_test + n_dev >= len(order):
        raise InputError(
            f"{len(order)} documents are too few to split into train, dev ({dev}) and test ({test}): "
            f"need at least {n_test + n_dev + 1}, each part one document or more"
        )
    return {"test": order[:n_test], "dev": order[n_test : n_test + n_dev], "train": order[n_test + n_dev :]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("gold", help="pair JSONL with gold (pre-segmented sides) or DEplain plan CSV file/folder")
    ap.add_argument("output", help="folder for train.spacy, dev.spacy, test.spacy and split.json")
    ap.add_argument("--lang", default="de", help="language of CSV input and of the tokenizer")
    ap.add_argument("--dev", type=float, default=0.1, help="share of documents for dev (checkpoint selection)")
    ap.add_argument("--test", type=float, default=0.2, help="share of documents for test (reported metrics)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="use only the first N documents (0 = all)")
    args = ap.parse_args(argv)
    try:
        gold = Path(args.gold)
        if not gold.exists():
            raise InputError("no such file or folder", str(gold))
        nlp = spacy.blank(args.lang)
        docs = read_gold(nlp, gold, args.lang, args.limit)
        parts = split_ids([doc._.pair_id for doc in docs], args.dev, args.test, args.seed)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    by_id = {doc._.pair_id: doc for doc in docs}
    for part in PARTS:
        docbin = DocBin(store_user_data=True, docs=[by_id[i] for i in parts[part]])
        with atomic_output(str(out / f"{part}.spacy"), "wb") as handle:
            handle.write(docbin.to_bytes())
    if gold.is_file() and gold.suffix == ".jsonl":
        lines = {obj["id"]: obj for _, obj in read_jsonl(str(gold))}
        for part in PARTS:
            write_jsonl(str(out / f"{part}.jsonl"), [lines[i] for i in parts[part]])
    with atomic_output(str(out / "split.json")) as handle:
        json.dump({"source": str(args.gold), "seed": args.seed, **parts}, handle, indent=2)
    counts = ", ".join(f"{part} {len(parts[part])}" for part in PARTS)
    print(f"{len(docs)} documents from {args.gold}: {counts} -> {out}")
    return 0


if __name__ == "__main__":
    pair.install_extensions()
    sys.exit(main())
