"""Scoring an alignment JSONL file against the gold beads of a pair JSONL file (what
`evaluate` runs): every prediction is checked like any other alignment file (one id once,
indices naming sentences of the gold's sides), so a bad prediction is a located error,
never a silently wrong score."""

from typing import Any, Dict

from ..errors import InputError
from ..formats.alignments import AlignmentLine, load_alignments
from ..formats.beads import SIDES, out_of_range, shown
from ..formats.pairs import PairRecord, read_pairs
from ..structures import Side
from .scoring import AlignmentScorer


def _side(record: PairRecord, name: str, predicted: AlignmentLine, gold_path: str) -> Side:
    """The gold side the indices refer to: given sentences, or (raw text) the sentences the
    prediction carries (with no prediction at all, our segmenter's)."""
    if record.is_presegmented(name) or predicted is None:
        return record.side(name)
    sents = predicted.sentences(name)
    if sents is None:
        raise InputError(
            f"side '{name}' of '{record.id}' is raw text in the gold file and the prediction has no "
            f"'{name}_sentences' to read its indices back",
            gold_path,
            record.line,
        )
    return Side(sents, [list(range(len(sents)))], record.side_lang(name))


def evaluate_files(gold_path: str, pred_path: str) -> Dict[str, Any]:
    """Link, bead-text and paragraph-pair P/R/F1 of the predictions, pooled over the gold pairs;
    a gold pair without a prediction counts as predicting nothing."""
    predicted = load_alignments(pred_path)
    scorer = AlignmentScorer()
    missing = 0
    for record in read_pairs(gold_path):
        if record.gold is None:
            raise InputError(f"pair '{record.id}' has no 'gold' field", gold_path, record.line)
        line = predicted.get(record.id)
        if line is None:
            missing += 1
        c, s = (_side(record, name, line, gold_path) for name in SIDES)
        sizes = (len(c), len(s))
        for b, name, bad, size in out_of_range(record.gold, sizes):
            raise InputError(
                f"'gold[{b}]' {name} index {shown(max(bad))} is out of range: the raw-text side has "
                f"{size} sentences as split for the prediction",
                gold_path,
                record.line,
            )
        beads = line.check_sizes(sizes).beads if line is not None else []
        scorer.add(record.gold, beads, c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of())
    scores = scorer.scores()
    scores["missing_predictions"] = missing
    return scores


def format_table(scores: Dict[str, Any]) -> str:
    lines = ["| metric | P | R | F1 |", "|---|---|---|---|"]
    for metric in ("link", "bead_text", "paragraph"):
        if metric in scores:
            m = scores[metric]
            lines.append(f"| {metric} | {m['p']:.3f} | {m['r']:.3f} | {m['f']:.3f} |")
    lines.append(f"\n{scores['docs']} documents, {scores['missing_predictions']} without a prediction")
    return "\n".join(lines)
