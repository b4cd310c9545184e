"""The bertalign side of benchmarks/scripts/bench_peers.py. Runs in .venv-peers (Python 3.12, bertalign
2.0.1 installed with --no-deps, numba, numpy); never imported by the package or its tests.

bertalign imports sentence-transformers (LaBSE), lingua (language detection), sentence-splitter
and torch (a top-k search) at module level. None of them is installed: placeholder modules
stand in for them below, before bertalign is imported, and

- the Encoder gets a model whose `encode(overlaps)` hands back vectors computed beforehand
  by the main venv with our USESimilarity, after checking that the overlap strings are the
  very ones bertalign asks for (so bertalign's own `Encoder.transform` still builds its
  (overlap, sentence, dim) arrays and byte lengths);
- the languages are given, not detected, and the texts are pre-split (`is_split=True`);
- `find_top_k_sents` (a torch matmul + topk in 2.0.1, a faiss IndexFlatIP search in v1.1)
  is the same exact inner-product top-k in numpy: PyPI's only Linux torch build for
  Python 3.12 is the CUDA one, which does not import without ~3 GB of nvidia libraries.
  The numba dynamic programs (both passes) are bertalign's own, untouched.

    .venv-peers/bin/python benchmarks/scripts/peers_bertalign.py overlaps REQUEST.json OUT.json
    .venv-peers/bin/python benchmarks/scripts/peers_bertalign.py align REQUEST.json VECDIR OUT.json

REQUEST.json: {"settings": {max_align, top_k, win, skip}, "docs": [{"id", "src", "tgt",
"src_lang", "tgt_lang"}]} with src/tgt lists of sentences. `overlaps` writes, per document,
the strings bertalign embeds on each side; `align` reads VECDIR/<k>-src.npy and
VECDIR/<k>-tgt.npy (k = document position) and writes the beads and the times.
"""

import json
import sys
import time
import types
from importlib import metadata


def _placeholder(name, *attrs):
    module = types.ModuleType(name)

    def refuse(*args, **kwargs):
        raise RuntimeError(f"{name} is a placeholder in the peers benchmark and must not be called")

    for attr in attrs:
        setattr(module, attr, type(attr, (), {"__init__": refuse}))
    module.__peers_placeholder__ = True
    return module


for _name, _attrs in (
    ("sentence_transformers", ("SentenceTransformer",)),
    ("lingua", ("IsoCode639_1", "LanguageDetector", "LanguageDetectorBuilder")),
    ("sentence_splitter", ("SentenceSplitter",)),
    ("torch", ()),
):
    if _name in sys.modules:
        raise SystemExit(f"error: {_name} is already imported; the placeholders must come first")
    sys.modules[_name] = _placeholder(_name, *_attrs)

import bertalign  # noqa: E402
import bertalign.aligner as ba  # noqa: E402
import numpy as np  # noqa: E402
from bertalign import Bertalign, Encoder  # noqa: E402


def find_top_k_sents(src_vecs, tgt_vecs, k=3):
    """bertalign's exact inner-product top-k, in numpy: (scores, indices), best first."""
    sims = np.ascontiguousarray(src_vecs, dtype=np.float32) @ np.ascontiguousarray(tgt_vecs, dtype=np.float32).T
    k = min(k, sims.shape[1])
    idx = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(sims, idx, axis=1), idx.astype(np.int64)


ba.find_top_k_sents = find_top_k_sents  # the aligner module imported the name itself


class GivenVectors:
    """Stands in for the SentenceTransformer inside bertalign's Encoder: `encode` returns the
    vectors given for exactly these strings (checked), or records them (vectors None)."""

    def __init__(self, dim=512, fill=None):
        self.expected, self.vectors, self.seen, self.dim, self.fill = [], [], [], dim, fill

    def encode(self, texts):
        texts = list(texts)
        self.seen.append(texts)
        if not self.expected:  # recording
            if self.fill is None:
                return np.zeros((len(texts), self.dim), dtype=np.float32)
            vecs = self.fill.standard_normal((len(texts), self.dim)).astype(np.float32)
            return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)
        want, vecs = self.expected.pop(0), self.vectors.pop(0)
        if texts != want:
            raise SystemExit("error: bertalign asked for other overlap strings than were embedded")
        return np.array(vecs, dtype=np.float32, copy=True)  # Encoder.transform resizes it in place


def make_encoder(model):
    encoder = Encoder.__new__(Encoder)  # skips SentenceTransformer(...)
    encoder.model, encoder.model_name = model, "USE (spacy_simalign.similarity.backends.USESimilarity)"
    return encoder


def build(doc, settings, encoder):
    """Bertalign on pre-split sentences, languages given; returns the instance."""
    langs = [doc["src_lang"], doc["tgt_lang"]]
    ba.detect_lang = lambda text: langs.pop(0)
    for side in ("src", "tgt"):
        if any(s.splitlines() != [s] or not s.strip() for s in doc[side]):
            raise SystemExit(f"error: {doc['id']}: a {side} sentence is empty or holds a line break")
    return Bertalign(
        "\n".join(doc["src"]),
        "\n".join(doc["tgt"]),
        is_split=True,
        model=encoder,
        max_align=settings["max_align"],
        top_k=settings["top_k"],
        win=settings["win"],
        skip=settings["skip"],
    )


def overlaps(request, out_path):
    out = []
    for doc in request["docs"]:
        model = GivenVectors()
        aligner = build(doc, request["settings"], make_encoder(model))
        assert (aligner.src_num, aligner.tgt_num) == (len(doc["src"]), len(doc["tgt"])), doc["id"]
        out.append({"id": doc["id"], "src": model.seen[0], "tgt": model.seen[1]})
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump({"docs": out}, handle, ensure_ascii=False)


def align(request, vecdir, out_path):
    settings = request["settings"]
    with open(f"{vecdir}/overlaps.json", encoding="utf-8") as handle:
        strings = json.load(handle)["docs"]
    t0 = time.perf_counter()  # numba's first calls compile (or load its cache): kept out of the timings
    tiny = {
        "id": "warm-up",
        "src": ["a b.", "c d.", "e f."],
        "tgt": ["a b.", "c d e f."],
        "src_lang": "en",
        "tgt_lang": "en",
    }
    build(tiny, settings, make_encoder(GivenVectors(8, np.random.default_rng(0)))).align_sents()
    warm_up = time.perf_counter() - t0
    results = []
    for k, (doc, ov) in enumerate(zip(request["docs"], strings)):
        model = GivenVectors()
        model.expected = [ov["src"], ov["tgt"]]
        model.vectors = [np.load(f"{vecdir}/{k}-src.npy"), np.load(f"{vecdir}/{k}-tgt.npy")]
        encoder = make_encoder(model)
        t0 = time.perf_counter()
        aligner = build(doc, settings, encoder)  # its encoder call is a copy of the given vectors
        beads = aligner.align_sents()
        seconds = time.perf_counter() - t0
        results.append(
            {"id": doc["id"], "beads": [[list(map(int, s)), list(map(int, t))] for s, t in beads], "seconds": seconds}
        )
    info = {
        "bertalign": bertalign.__version__,
        "numba": metadata.version("numba"),
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "warm_up_seconds": warm_up,
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
