"""The Klexikon pipeline on ../shared/data/klexikon-validation: lines kept/changed per
clean-up rule and side, pairs discarded for short Wikipedia articles, split sizes, and the
lead-3 baseline (mean ROUGE F1 against the whole Klexikon article, two examples shown).

    .venv/bin/python project/run_klexikon.py [OUT_DIR]   (default: a temporary folder)"""
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spacy_simalign.__main__ import main  # noqa: E402

DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))

if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="klexikon-")
    status = main(["klexikon", str(DATA / "klexikon-validation"), out])
    with open(os.path.join(out, "lead3.jsonl"), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle]
    print(f"\nlead-3 output ({out}/lead3.jsonl), first two test articles:")
    for row in [r for r in rows if r["split"] == "test"][:2]:
        print(f"- {row['id']} (ROUGE-1 {row['rouge1']:.3f}): {row['lead3'][:300]}")
    sys.exit(status)
