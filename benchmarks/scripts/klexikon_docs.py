"""Convert a klexikon-validation folder (274 Klexikon / German Wikipedia article pairs) into a
document-matching benchmark: two documents JSONL files (Klexikon side, Wikipedia side) with opaque
ids, plus the gold pairs, so that the matcher never sees a title.

Ids are drawn from a seeded shuffle (k0001.., w0001..) and lines are written in id order, so
neither the id nor the line position reveals the file name (the title). The "lead" is the
first paragraph; `== Heading` lines of the Wikipedia side are dropped from the text (the parser of
spacy_simalign.corpus.klexikon, the corpus tools' own).
Data: Klexikon (Aumiller and Gertz, 2022), CC BY-SA.

    cd benchmarks && spacy project run docmatch-klexikon   # this, then calibrate-docs on its output
    python benchmarks/scripts/klexikon_docs.py ../shared/data/klexikon-validation corpus/klexikon-docs
    -> corpus/klexikon-docs/{source,target,gold}.jsonl
"""

import argparse
import json
import os
import random
import sys
from typing import Tuple

from spacy_simalign.corpus.klexikon import read_article as parse_klexikon_article


def read_article(path: str) -> Tuple[str, str]:
    """(text, lead): the paragraphs of corpus.klexikon's parser (headings dropped) joined by a blank
    line, and the first paragraph."""
    paragraphs = parse_klexikon_article(path).paragraphs
    text = "\n\n".join("\n".join(p) for p in paragraphs)
    return text, " ".join(paragraphs[0]) if paragraphs else ""


def write_documents(folder: str, out_dir: str, seed: int = 13) -> int:
    """Write out_dir/{source,target,gold}.jsonl from a klexikon-validation folder (klexikon/ and
    wiki/ of <title>.txt files); returns the number of pairs (titles on both sides)."""
    titles = sorted(name[:-4] for name in os.listdir(os.path.join(folder, "klexikon")) if name.endswith(".txt"))
    titles = [t for t in titles if os.path.exists(os.path.join(folder, "wiki", t + ".txt"))]
    rng = random.Random(seed)
    source_order, target_order = titles[:], titles[:]
    rng.shuffle(source_order)
    rng.shuffle(target_order)
    source_id = {t: f"k{i + 1:04d}" for i, t in enumerate(source_order)}
    target_id = {t: f"w{i + 1:04d}" for i, t in enumerate(target_order)}
    os.makedirs(out_dir, exist_ok=True)
    for name, side, ids, order in (
        ("source", "klexikon", source_id, source_order),
        ("target", "wiki", target_id, target_order),
    ):
        with open(os.path.join(out_dir, f"{name}.jsonl"), "w", encoding="utf-8") as handle:
            for title in order:
                text, lead = read_article(os.path.join(folder, side, title + ".txt"))
                handle.write(
                    json.dumps({"id": ids[title], "lang": "de", "text": text, "lead": lead}, ensure_ascii=False) + "\n"
                )
    with open(os.path.join(out_dir, "gold.jsonl"), "w", encoding="utf-8") as handle:
        for title in sorted(titles, key=lambda t: source_id[t]):
            handle.write(json.dumps({"source": source_id[title], "target": target_id[title]}) + "\n")
    return len(titles)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="klexikon-validation folder (klexikon/ and wiki/)")
    parser.add_argument("out_dir", help="where to write source.jsonl, target.jsonl, gold.jsonl")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    n = write_documents(args.folder, args.out_dir, args.seed)
    print(f"{n} pairs -> {args.out_dir}/source.jsonl, target.jsonl, gold.jsonl", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
