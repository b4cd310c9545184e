"""Shared fixtures: the real data, the sentence encoders and the shipped CRF. The DEplain-web dev
pairs are read from the project's own assets/ (the same file as ../shared/data/deplain-web-dev/pairs.jsonl,
with its attribution in assets/deplain-web-dev/README.md), so most tests run from a clone alone. The other
seed corpora (Simple German Corpus, Klexikon, Amsterdam, Text+Berg, TransRead, the DEplain plans) may not be
copied into the repository: tests read them through `shared_data`, from ../shared/data beside the clone or
from $SIMALIGN_SHARED_DATA, and skip, counted in the run's summary, where that folder is absent.

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

from spacy_simalign.core.registries import similarity_registry
from spacy_simalign.similarity.backends import EmbeddingSimilarity

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA_ENV = "SIMALIGN_SHARED_DATA"
SHARED_DATA = Path(os.environ.get(SHARED_DATA_ENV) or ROOT.parent / "shared" / "data")
NO_SHARED_DATA = "needs the seed corpora"  # starts the reason of every skip for want of SHARED_DATA
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


def shared_path(relative: str) -> Path:
    """SHARED_DATA / RELATIVE (a file or folder of the seed corpora). Where SHARED_DATA is absent (a plain
    clone) the calling test skips; where it is there without RELATIVE the test fails: a stale copy."""
    path = SHARED_DATA / relative
    if path.exists():
        return path
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{NO_SHARED_DATA}: reads {relative} from {SHARED_DATA}, which is not there")
    pytest.fail(f"{path} is missing: {SHARED_DATA} holds other seed corpora than these tests read")


@pytest.fixture(scope="session")
def shared_data():
    """shared_data("sgc-dev/pairs.jsonl"): the path in the seed corpora, or a skip (see shared_path)."""
    return shared_path


def pytest_terminal_summary(terminalreporter):
    """One line for the tests skipped for want of the seed corpora: how many, and where to put them."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if NO_SHARED_DATA in str(r.longrepr)]
    if skipped:
        tests = "1 test" if len(skipped) == 1 else f"{len(skipped)} tests"
        where = f"{SHARED_DATA} (${SHARED_DATA_ENV})" if os.environ.get(SHARED_DATA_ENV) else "../shared/data"
        terminalreporter.write_line(
            f"{tests} skipped: they read {where}, the seed corpora, which are not in the repository; "
            f"put them beside the clone as ../shared/data or set {SHARED_DATA_ENV}=DIR",
            yellow=True,
        )


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
    from spacy_simalign.formats.pair_jsonl import parse_pair

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


@pytest.fixture
def said(monkeypatch, caplog):
    """said(): the warnings of speed shortcuts switched off (startup/shortcuts.py) since the last call,
    each said anew in this test (they are said once a process)."""
    from spacy_simalign.startup import shortcuts

    monkeypatch.setattr(shortcuts, "_said", set())
    caplog.set_level("WARNING", logger="spacy_simalign")

    def messages():
        found = [r.getMessage() for r in caplog.records if r.name == "spacy_simalign"]
        caplog.clear()
        shortcuts._said.clear()
        return found

    return messages
