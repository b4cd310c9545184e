"""Correct alignments by hand in a local web page that saves them as the `gold` of pair JSONL
(`python -m spacy_simalign review PAIRS.jsonl [ALIGNMENTS.jsonl] --port N`)."""

from .app import ReviewServer, create_app
from .store import Conflict, PairStore

__all__ = ["ReviewServer", "create_app", "Conflict", "PairStore"]
