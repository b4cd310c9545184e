"""Shared fixtures: the real data in ../shared/data (see its README for licences)."""
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("SIMALIGN_SHARED_DATA", ROOT.parent / "shared" / "data"))
DEPLAIN_PAIRS = SHARED_DATA / "deplain-web-dev" / "pairs.jsonl"


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
        pytest.fail(f"shared data not found at {DEPLAIN_PAIRS}: set SIMALIGN_SHARED_DATA")
    return load_deplain()


@pytest.fixture(scope="session")
def shared_data():
    return SHARED_DATA
