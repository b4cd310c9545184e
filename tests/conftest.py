"""Shared fixtures: the real data. The DEplain-web dev pairs are read from the project's own
assets/ (the same file as ../shared/data/deplain-web-dev/pairs.jsonl, with its attribution in
assets/deplain-web-dev/README.md), so most tests run from a clone alone; the rest (plans, Klexikon,
Amsterdam, Text+Berg) read ../shared/data (set SIMALIGN_SHARED_DATA to point elsewhere)."""
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))
DEPLAIN_PAIRS = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"


def load_deplain(limit: int = None):
    """The DEplain-web dev pairs as dicts (pair JSONL, FORMATS.md)."""
    out = []
    with open(DEPLAIN_PAIRS, encoding="utf-8") as handle:
        for line in handle:
            out.append(json.loads(line))
            if limit and len(out) >= limit:
                break
    return out


@pytest.fixture(scope="session")
def deplain_pairs():
    if not DEPLAIN_PAIRS.exists():
        pytest.fail(f"the DEplain-web dev pairs are missing at {DEPLAIN_PAIRS}")
    return load_deplain()


@pytest.fixture(scope="session")
def shared_data():
    return SHARED_DATA
