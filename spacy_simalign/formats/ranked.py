"""`rank`'s output, one pair per line: its id, a tab and its score, most unsure first. Written by
`rank --output` and read back by `review --order`, which shows the pairs in that order."""

from typing import Dict, List, Sequence, Tuple

from ..core.errors import InputError
from .jsonl import iter_lines


def ranked_lines(scored: Sequence[Tuple[float, str]]) -> List[str]:
    """The lines of (score, id) pairs, in the order given."""
    return [f"{pair_id}\t{value:.4f}" for value, pair_id in scored]


def read_order(path: str, known: Sequence[str], known_in: str) -> Dict[str, int]:
    """Each id of a ranked file (the text before the line's last tab; a line without a tab is an
    id) and its position. An id twice, or not among `known` (the ids of the file `known_in`), is a
    located error."""
    known_ids = set(known)
    order: Dict[str, int] = {}
    for number, text in iter_lines(path):
        line = text.rstrip("\r\n")
        pair_id = line.rsplit("\t", 1)[0] if "\t" in line else line
        if pair_id in order:
            raise InputError(f"id '{pair_id}' is listed twice", path, number)
        if pair_id not in known_ids:
            raise InputError(f"id '{pair_id}' is not a pair of {known_in}", path, number)
        order[pair_id] = len(order)
    return order
