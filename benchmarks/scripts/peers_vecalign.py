"""The vecalign side of benchmarks/scripts/bench_peers.py. Runs in .venv-peers (Python 3.12, sentalign 0.3.0:
vecalign's dynamic programming, Brian Thompson's code with its Cython core, as a library); never
imported by the package or its tests.

sentalign.sentalign() embeds, per side, the layers of vecalign's overlap strings (layer k: each
run of k consecutive sentences, front-padded with 'PAD', k = 1..alignment_max_size) through an
`encoder.encode(strings)` call per layer, then runs vecalign's recursive DP (a full 1:1 DP on
downsampled vectors when a side is long, then a banded DP over every n:m with n + m <=
alignment_max_size, plus 1:0 and 0:1 at a deletion penalty set from the cost distribution).
Here the encoder hands back vectors computed beforehand by the main venv with our
USESimilarity, after checking that the strings are the very ones sentalign asks for.

    .venv-peers/bin/python benchmarks/scripts/peers_vecalign.py overlaps REQUEST.json OUT.json
    .venv-peers/bin/python benchmarks/scripts/peers_vecalign.py align REQUEST.json VECDIR OUT.json

REQUEST.json: {"settings": sentalign's keyword arguments, "docs": [{"id", "src", "tgt",
"src_lang", "tgt_lang"}]}. `overlaps` writes, per document and side, the strings to embed (the
layers one after the other, as bertalign's driver writes its strings) and the layers' sizes; `align` reads VECDIR/<k>-src.npy and VECDIR/<k>-tgt.npy (k = document
position, rows in the order of the strings) and writes the beads and the times.
"""

import json
import sys
import time
from importlib import metadata

import numpy as np
from sentalign import sentalign
from sentalign.dp_utils import layer, preprocess_line

SIDES = ("src", "tgt")


def layers(sentences, settings):
    """The strings sentalign embeds for one side, one list per overlap size (its own functions)."""
    size = 1 if settings.get("one_to_many") else settings["alignment_max_size"]
    clean = [preprocess_line(s) for s in sentences]
    return [layer(clean, k) for k in range(1, size + 1)]


class GivenVectors:
    """Stands in for sentalign's encoder: `encode` returns the given rows for exactly the
    strings expected next (checked), one call per overlap layer."""

    def __init__(self, expected, vectors):
        self.expected, self.rows, self.seconds = list(expected), vectors, 0.0

    def encode(self, texts):
        t0 = time.perf_counter()
        want = self.expected.pop(0)
        if list(texts) != want:
            raise SystemExit("error: sentalign asked for other overlap strings than were embedded")
        vecs, self.rows = self.rows[: len(want)], self.rows[len(want) :]
        self.seconds += time.perf_counter() - t0
        return np.array(vecs, dtype=np.float32, copy=True)


def overlaps(request, out_path):
    settings, out = request["settings"], []
    for doc in request["docs"]:
        for side in SIDES:
            if any(not s.strip() for s in doc[side]):
                raise SystemExit(f"error: {doc['id']}: a {side} sentence is empty")
        by_side = {side: layers(doc[side], settings) for side in SIDES}
        out.append(
            {
                "id": doc["id"],
                **{side: [s for strings in by_side[side] for s in strings] for side in SIDES},
                "layers": {side: [len(strings) for strings in by_side[side]] for side in SIDES},
            }
        )
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump({"docs": out}, handle, ensure_ascii=False)


def align(request, vecdir, out_path):
    settings = request["settings"]
    with open(f"{vecdir}/overlaps.json", encoding="utf-8") as handle:
        strings = json.load(handle)["docs"]
    results = []
    for k, (doc, ov) in enumerate(zip(request["docs"], strings)):
        rows = np.concatenate([np.load(f"{vecdir}/{k}-{side}.npy") for side in SIDES])
        expected = []
        for side in SIDES:
            starts = np.cumsum([0] + ov["layers"][side])
            expected += [ov[side][a:b] for a, b in zip(starts[:-1], starts[1:])]
        model = GivenVectors(expected, rows)
        t0 = time.perf_counter()
        result = sentalign(doc["src"], doc["tgt"], model, **settings)
        seconds = time.perf_counter() - t0 - model.seconds
        if model.expected or len(model.rows):
            raise SystemExit(f"error: {doc['id']}: sentalign left embedded overlap strings unused")
        beads = [[list(map(int, a.src_indices)), list(map(int, a.tgt_indices))] for a in result.alignments]
        results.append({"id": doc["id"], "beads": beads, "seconds": seconds})
    info = {
        "sentalign": metadata.version("sentalign"),
        "numpy": np.__version__,
        "python": sys.version.split()[0],
    }
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump({"info": info, "docs": results}, handle)


def main(argv):
    if len(argv) == 3 and argv[0] == "overlaps":
        overlaps(json.load(open(argv[1], encoding="utf-8")), argv[2])
    elif len(argv) == 4 and argv[0] == "align":
        align(json.load(open(argv[1], encoding="utf-8")), argv[2], argv[3])
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
