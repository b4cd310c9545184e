"""Identical sentences in long pairs (issue 15, item 8): the 82 DEplain-web dev pairs concatenated
into one complex and one simple side (repeated --repeat times: then every text occurs that often on
each side), aligned by the shipped CRF with `identical = "off"` and with the default; counts the simple
sentences that have an identical complex sentence and end up in n:1 beads, or in a 1:1 bead with an
identical sentence.

    SPACY_SIMALIGN_CACHE=.cache/emb .venv/bin/python project/check_identical.py [--repeat 6]
"""
import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from spacy_simalign.crf.aligner import DEFAULT_WEIGHTS, CRFAligner  # noqa: E402
from spacy_simalign.crf.identical import normal_form  # noqa: E402
from spacy_simalign.formats.pairs import parse_pair  # noqa: E402
from spacy_simalign.structures import Side  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--repeat", type=int, default=1)
reps = ap.parse_args().repeat
recs = [json.loads(line) for line in open(ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl", encoding="utf-8")]
pairs = [parse_pair(r, default_lang="de").training_pair() for r in recs]
cs = [s for _ in range(reps) for p in pairs for s in p.complex.sentences]
ss = [s for _ in range(reps) for p in pairs for s in p.simple.sentences]
print(len(cs), "x", len(ss))
forms = {}
for i, s in enumerate(cs):
    forms.setdefault(normal_form(s), []).append(i)
with_twin = [j for j, s in enumerate(ss) if normal_form(s) in forms]
for mode in ("off", "unique"):
    a = CRFAligner.load(DEFAULT_WEIGHTS, overrides={"identical": mode})
    t = time.time()
    beads = a.align(Side(cs, [list(range(len(cs)))]), Side(ss, [list(range(len(ss)))]))
    bead_of = {j: b for b in beads for j in b.simple}
    n1 = sum(1 for j in with_twin if j in bead_of and len(bead_of[j].complex) > 1)
    own = sum(1 for j in with_twin if j in bead_of and len(bead_of[j].complex) == 1 and len(bead_of[j].simple) == 1
              and normal_form(cs[bead_of[j].complex[0]]) == normal_form(ss[j]))
    worst = max((len(bead_of[j].complex) for j in with_twin if j in bead_of), default=0)
    print(f"{mode}: {len(with_twin)} simple sentences with an identical complex one; in n:1 beads {n1} (largest n {worst}); "
          f"in a 1:1 bead with an identical sentence {own}; {time.time() - t:.1f} s", flush=True)
