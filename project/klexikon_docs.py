"""Convert ../shared/data/klexikon-validation into two documents JSONL files (Klexikon side,
Wikipedia side) with opaque ids, plus the gold pairs, so the matcher never sees a title
(spacy_simalign.docmatch.klexikon).

    python -m spacy project run docmatch-klexikon   # this, then calibrate-docs on its output
    python project/klexikon_docs.py ../shared/data/klexikon-validation corpus/klexikon-docs
    -> corpus/klexikon-docs/{source,target,gold}.jsonl
"""

import argparse
import sys

from spacy_simalign.docmatch.klexikon import write_documents


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
