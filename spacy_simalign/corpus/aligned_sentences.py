"""The sentences an alignment line's indices name, taken from its pair: the pair file is the source
of the text, and a stale line (made from other sentences than the pair's) is refused, naming the
pair. The one definition of stale, for `evaluate` and `export`.

A line whose `made_from.pair` is the pair's digest (engines.job.pair_digest) was made from this
very pair. Otherwise (a field of the pair edited since, gold added by `review`, or a line without
`made_from`, as `align-xling` writes them) the sentences the line carries are compared with the
pair's: a pre-segmented side's one by one, a raw-text side's as our segmenter cuts the text or, for
a line cut by another tool, as the text itself; whitespace does not count. A side whose sentences
the line does not carry (a pre-segmented one) is compared by the digest of its sentences that
`made_from.sentences` records (engines.job.sentences_digest). Only the text counts: a pair whose
`gold`, `license` or another field was edited still matches. A line that records no such digest
(an older version wrote it) is indexed in the pair's own sentences for such a side."""

from typing import List, Optional, Tuple

from ..core.errors import InputError
from ..engines.job import pair_digest, sentences_digest
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


def recorded_digest(line: AlignmentLine, name: str) -> Optional[str]:
    """The digest of side `name`'s sentences that the line records (`made_from.sentences`), if any."""
    made = line.raw.get("made_from")
    recorded = made.get("sentences") if isinstance(made, dict) else None
    digest = recorded.get(name) if isinstance(recorded, dict) else None
    return digest if isinstance(digest, str) else None


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


def current_sentences(record: PairRecord, line: AlignmentLine, name: str, same_pair: bool) -> Optional[List[str]]:
    """Side `name`'s sentences that `line`'s indices name, None when the line is stale on this side
    (see the module docstring); `same_pair`: the line was made from this very pair."""
    carried = line.sentences(name)
    if same_pair:
        return made_sentences(record, name, carried)
    recorded = recorded_digest(line, name)
    if carried is None and recorded is not None:
        own = record.side(name).sentences
        return own if sentences_digest(own) == recorded else None
    return matching_sentences(record, name, carried)


def aligned_sentences(record: PairRecord, line: AlignmentLine, pairs_path: str) -> Tuple[List[str], List[str]]:
    """(complex, simple) sentences of `record` that `line`'s beads index; an InputError at the
    line when it is stale: made from other sentences than the pair's (see the module docstring)."""
    same_pair = made_from_pair(line, record)
    found = []
    for name in SIDES:
        sentences = current_sentences(record, line, name, same_pair)
        if sentences is None:
            raise InputError(
                f"the {name} sentences of pair '{line.id}' are not the pair's "
                f"in {pairs_path} (was it edited since it was aligned?): align the pair again",
                line.path,
                line.line,
            )
        found.append(sentences)
    return found[0], found[1]
