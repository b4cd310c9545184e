"""The sentences an alignment line's indices name, taken from its pair: the pair file is the source
of the text, and a line made from another version of the pair is refused, naming the pair.

A line whose `made_from.pair` is the pair's digest (engines.job.pair_digest) was made from this
very pair. Otherwise (a field of the pair edited since, or a line without `made_from`, as
`align-xling` writes them) the sentences the line carries are compared with the pair's: a
pre-segmented side's one by one, a raw-text side's as our segmenter cuts the text or, for a line
cut by another tool, as the text itself; whitespace does not count. Only the text does: a pair
whose `license` or another field was edited still matches. A side whose sentences the line does
not carry is indexed in the pair's own sentences (the indices are checked against them)."""

from typing import List, Optional, Tuple

from ..core.errors import InputError
from ..engines.job import pair_digest
from ..formats.alignments import AlignmentLine
from ..formats.bead_parser import SIDES
from ..formats.pair_jsonl import PairRecord


def same_text(a: str, b: str) -> bool:
    """The same text but for whitespace (how much, and where)."""
    return "".join(a.split()) == "".join(b.split())


def made_from_pair(line: AlignmentLine, record: PairRecord) -> bool:
    """Does the line say it was made from this very pair (its `made_from.pair`)?"""
    made = line.raw.get("made_from")
    return isinstance(made, dict) and made.get("pair") == pair_digest(record)


def made_sentences(record: PairRecord, name: str, carried: Optional[List[str]]) -> List[str]:
    """Side `name`'s sentences of a line made from this very pair: a pre-segmented side's own,
    a raw-text side's as the line carries them (as align segmented it; no need to again)."""
    return carried if carried is not None and not record.is_presegmented(name) else record.side(name).sentences


def matching_sentences(record: PairRecord, name: str, carried: Optional[List[str]]) -> Optional[List[str]]:
    """Side `name`'s sentences that the line's `carried` ones name (None where it carries none):
    the pair's own, or for a raw-text side cut by another tool the carried ones; None when they
    are not the pair's text."""
    own = record.side(name).sentences
    if carried is None:
        return own
    if record.is_presegmented(name):
        return own if len(carried) == len(own) and all(map(same_text, carried, own)) else None
    if carried == own:
        return own
    return list(carried) if same_text("".join(carried), record.given_text(name)) else None


def aligned_sentences(record: PairRecord, line: AlignmentLine, pairs_path: str) -> Tuple[List[str], List[str]]:
    """(complex, simple) sentences of `record` that `line`'s beads index; an InputError at the
    line when it was made from another text (see the module docstring)."""
    if made_from_pair(line, record):
        found = [made_sentences(record, name, line.sentences(name)) for name in SIDES]
        return found[0], found[1]
    found = []
    for name in SIDES:
        sentences = matching_sentences(record, name, line.sentences(name))
        if sentences is None:
            raise InputError(
                f"the {name} sentences of pair '{line.id}' are not the pair's "
                f"in {pairs_path} (was it edited since it was aligned?): align the pair again",
                line.path,
                line.line,
            )
        found.append(sentences)
    return found[0], found[1]
