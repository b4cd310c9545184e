"""The Klexikon pipeline on ../shared/data/klexikon-validation: lines kept/changed per
clean-up rule and side, pairs discarded for short Wikipedia articles, split sizes, and the
lead-3 baseline (mean ROUGE F1 against the whole Klexikon article, two examples shown).

    cd benchmarks && spacy project run corpus-klexikon
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/run_klexikon.py [OUT_DIR] [--data ../shared/data]   (default: a temporary folder)"""

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from script_output import add_output_option, run_main

from spacy_simalign.__main__ import main as simalign

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", nargs="?", default=None, help="folder for the corpus (default: a temporary one)")
    parser.add_argument("--data", default=str(DATA), help="the shared data folder")
    add_output_option(parser)
    args = parser.parse_args(argv)
    out = args.out_dir or tempfile.mkdtemp(prefix="klexikon-")
    status = simalign(["klexikon", str(Path(args.data) / "klexikon-validation"), out])
    with open(os.path.join(out, "lead3.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    print(f"\nlead-3 output ({out}/lead3.jsonl), first two test articles:")
    for row in [r for r in rows if r["split"] == "test"][:2]:
        print(f"- {row['id']} (ROUGE-1 {row['rouge1']:.3f}): {row['lead3'][:300]}")
    return status


if __name__ == "__main__":
    sys.exit(run_main(main))
