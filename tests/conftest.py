"""Shared fixtures: the real data, the sentence encoders and the shipped CRF. The DEplain-web dev
pairs are read from the project's own assets/ (the same file as ../shared/data/deplain-web-dev/pairs.jsonl,
with its attribution in assets/deplain-web-dev/README.md), so most tests run from a clone alone; the rest
(plans, Klexikon, Amsterdam, Text+Berg) read ../shared/data (set SIMALIGN_SHARED_DATA to point elsewhere).

Speed: `make test` runs the tests not marked slow or browser (setup.cfg). Tests that do not measure
quality take `fake_encoder` (hashed character n-grams, no model to load) instead of USE."""

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from spacy_simalign.registry import similarity_registry
from spacy_simalign.similarity.backends import EmbeddingSimilarity

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))
DEPLAIN_PAIRS = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
SMALL = ("deplain-web-98", "deplain-web-108", "deplain-web-129")  # short DEplain pairs with real gold
FAKE_ENCODER = "spacy-simalign-tests.HashedNgramSimilarity.v1"

# A developer's embedding cache (SQLite, similarity/backends.py) would hide the encoder's work: tests
# encode from scratch, as on a fresh machine, and never read vectors written by another version.
os.environ.pop("SPACY_SIMALIGN_CACHE", None)


def load_deplain(limit: int = None):
    """The DEplain-web dev pairs as dicts (pair JSONL, FORMATS.md)."""
    out = []
    with open(DEPLAIN_PAIRS, encoding="utf-8") as handle:
        for line in handle:
            out.append(json.loads(line))
            if limit and len(out) >= limit:
                break
    return out


def numbered_rows(deplain_pairs, n: int):
    """n copies of the dev pairs, cycling, with ids made unique ('ID#k'): inputs of any length."""
    rows = []
    for k in range(n):
        row = json.loads(json.dumps(deplain_pairs[k % len(deplain_pairs)]))
        row["id"] = f"{row['id']}#{k}"
        rows.append(row)
    return rows


def write_jsonl(path, rows):
    """The rows as pair JSONL (UTF-8, one object a line); returns the path."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


class HashedNgramSimilarity(EmbeddingSimilarity):
    """A stand-in sentence encoder: character 3-grams of the lower-cased text hashed (CRC32) into
    `dim` buckets. Deterministic in every process, nothing to load; similar texts get similar
    vectors, but no quality is claimed: for tests of plumbing, batching and capping."""

    name = "hashed-ngrams"
    spec = None
    dim = 512

    def _encode_batch(self, texts, lang):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            padded = f"  {text.lower()} "
            for k in range(len(padded) - 2):
                out[row, zlib.crc32(padded[k : k + 3].encode("utf-8")) % self.dim] += 1.0
            out[row, zlib.crc32(lang.encode("utf-8")) % self.dim] += 0.5  # never all zeros
        return out


@similarity_registry(FAKE_ENCODER)
def make_hashed_ngram_similarity() -> EmbeddingSimilarity:
    return HashedNgramSimilarity()


def with_fake_encoder(config):
    """A copy of an aligner config (a method_config) whose [aligner.similarity] is the fake encoder."""
    config = config.copy()
    config["aligner"] = dict(config["aligner"], similarity={"@simalign_similarity": FAKE_ENCODER})
    return config


@pytest.fixture(scope="session")
def deplain_pairs():
    if not DEPLAIN_PAIRS.exists():
        pytest.fail(f"the DEplain-web dev pairs are missing at {DEPLAIN_PAIRS}")
    return load_deplain()


@pytest.fixture(scope="session")
def shared_data():
    return SHARED_DATA


@pytest.fixture(scope="session")
def encoder():
    """Multilingual USE, shared by the whole session (the CRF's own encoder, for tests that measure quality)."""
    from spacy_simalign.similarity.backends import make_use_similarity

    return make_use_similarity()


@pytest.fixture(scope="session")
def fake_encoder():
    return HashedNgramSimilarity()


@pytest.fixture(scope="session")
def shipped(encoder):
    """The shipped CRF weights on USE (tests must not change it: copy its config to vary it)."""
    from spacy_simalign.aligners.crf.aligner import CRFAligner

    return CRFAligner.default(encoder=encoder)


@pytest.fixture(scope="session")
def small_pairs(deplain_pairs):
    """The SMALL pairs as training pairs (sides and gold beads)."""
    from spacy_simalign.formats.pairs import parse_pair

    by_id = {r["id"]: r for r in deplain_pairs}
    return [parse_pair(by_id[i]).training_pair() for i in SMALL]


XLING = ROOT / "tests" / "data" / "xling"


@pytest.fixture(scope="session")
def xling_aligned(tmp_path_factory):
    """(matches, aligned) files of the German-French articles of tests/data/xling: match-docs, then
    align-xling on its matches, as a user runs them (shared by the cross-lingual and stats tests)."""
    from spacy_simalign.__main__ import main

    folder = tmp_path_factory.mktemp("xling")
    matches, aligned = folder / "matches.jsonl", folder / "aligned.jsonl"
    de, fr = str(XLING / "de.jsonl"), str(XLING / "fr.jsonl")
    assert main(["match-docs", de, fr, str(matches), "--window-days", "3"]) == 0
    assert main(["align-xling", str(matches), str(aligned), "--source", de, "--target", fr]) == 0
    return matches, aligned


def align_cli(src, out, *extra):
    """`python -m spacy_simalign align SRC OUT --method tfidf --batch-size 3 EXTRA...` in a fresh process
    (the engines' tests compare its bytes across process counts and engines); it must succeed."""
    cmd = [sys.executable, "-m", "spacy_simalign", "align", str(src), str(out), "--method", "tfidf"]
    result = subprocess.run([*cmd, "--batch-size", "3", *extra], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result
