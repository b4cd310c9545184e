"""Scoring an alignment JSONL file against the gold beads of a pair JSONL file (what
`evaluate` runs): every prediction is checked like any other alignment file (one id once,
indices naming sentences of the gold's sides) and against the text it was made from (a stale
prediction, of a pair whose sentences were edited since, is refused as `export` refuses it:
corpus.aligned_sentences), so a bad prediction is a located error, never a silently wrong score.
A gold file with no pair is an error too: it would score as zeros."""

from typing import Any, Dict, List, Optional

from ..aligners.scoring import AlignmentScorer
from ..core.errors import InputError
from ..core.structures import Bead, Side, TrainingPair
from ..core.terminal_text import safe
from ..corpus.aligned_sentences import aligned_sentences
from ..formats.alignments import AlignmentLine, load_alignments
from ..formats.bead_parser import SIDES, check_raw_text_gold
from ..formats.pair_jsonl import PairRecord, read_pairs
from .tally import Tally


def _side(record: PairRecord, name: str, predicted: Optional[AlignmentLine], gold_path: str) -> Side:
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


def evaluate_files(
    gold_path: str, pred_path: str, detail: bool = False, exclude_identical: bool = False
) -> Dict[str, Any]:
    """Link, bead-text and paragraph-pair P/R/F1 of the predictions, pooled over the gold pairs;
    a gold pair without a prediction counts as predicting nothing, and a prediction of an id that
    is not in the gold is left out ("predictions_not_in_gold" counts them). `detail`: also recall
    per gold bead shape ("shapes") and each pair's own figures ("documents", worst bead-text F1
    first). `exclude_identical`: every link figure by Wiki-Manual's Task 1 protocol (AlignmentScorer)."""
    predicted = load_alignments(pred_path)
    scorer = AlignmentScorer(exclude_identical)
    tally, documents = Tally(exclude_identical), []
    missing = 0
    gold_ids = set()
    for record in read_pairs(gold_path):
        gold = record.gold
        if gold is None:
            raise InputError(f"pair '{record.id}' has no 'gold' field", gold_path, record.line)
        gold_ids.add(record.id)
        line = predicted.get(record.id)
        if line is None:
            missing += 1
        else:
            aligned_sentences(record, line, gold_path)  # a stale prediction is refused, naming the pair
        c, s = (_side(record, name, line, gold_path) for name in SIDES)
        sizes = (len(c), len(s))
        check_raw_text_gold(gold, sizes, "as split for the prediction", gold_path, record.line)
        beads = line.check_sizes(sizes).beads if line is not None else []
        scorer.add(gold, beads, c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of())
        if detail:
            tally.add(TrainingPair(c, s, list(gold), id=record.id), beads)
            documents.append(document_figures(record.id, gold, beads, c, s, line is not None, exclude_identical))
    if not gold_ids:
        raise InputError("no pair to score against: the gold file holds no pair", gold_path)
    scores = scorer.scores()
    scores["missing_predictions"] = missing
    scores["predictions_not_in_gold"] = sum(1 for pair_id in predicted if pair_id not in gold_ids)
    if detail:
        scores["shapes"] = tally.figures()["shapes"]
        scores["documents"] = sorted(documents, key=lambda d: (d["bead_text"]["f"], d["link"]["f"]))
    return scores


def document_figures(
    pair_id: str, gold: List[Bead], beads: List[Bead], c: Side, s: Side, predicted: bool, exclude_identical=False
) -> Dict[str, Any]:
    """One pair's own link and bead-text P/R/F1, with its numbers of gold and predicted beads."""
    own = AlignmentScorer(exclude_identical)
    own.add(gold, beads, c.sentences, s.sentences)
    figures = own.scores()
    return {
        "id": pair_id,
        "gold_beads": len(gold),
        "predicted_beads": len(beads),
        "predicted": predicted,
        "link": figures["link"],
        "bead_text": figures["bead_text"],
    }


def format_table(scores: Dict[str, Any]) -> str:
    left_out = scores.get("identical_links_left_out")
    lines = ["| metric | P | R | F1 |", "|---|---|---|---|"]
    for metric in ("link", "bead_text", "paragraph"):
        if metric in scores:
            m = scores[metric]
            name = "link, identical left out" if metric == "link" and left_out else metric
            lines.append(f"| {name} | {m['p']:.3f} | {m['r']:.3f} | {m['f']:.3f} |")
    lines.append(f"\n{scores['docs']} documents, {scores['missing_predictions']} without a prediction")
    if left_out:
        lines.append(
            f"Task 1 protocol: {left_out['gold']} gold and {left_out['predicted']} predicted links between identical "
            "sentences left out of every link figure"
        )
    if "shapes" in scores:
        lines += ["", "| gold bead shape | beads | link recall | exact bead recall |", "|---|---|---|---|"]
        for shape, figures in scores["shapes"].items():
            if figures["beads"]:
                lines.append(
                    f"| {shape} | {figures['beads']} | {figures['link_recall']:.3f} | {figures['exact_recall']:.3f} |"
                )
    if "documents" in scores:
        lines += ["", "| document (worst first) | gold beads | predicted beads | link F1 | bead-text F1 |"]
        lines.append("|---|---|---|---|---|")
        for d in scores["documents"]:
            shown_beads = d["predicted_beads"] if d["predicted"] else "no prediction"
            lines.append(
                f"| {safe(d['id'], newlines=False)} | {d['gold_beads']} | {shown_beads} | {d['link']['f']:.3f} | "
                f"{d['bead_text']['f']:.3f} |"
            )
    return "\n".join(lines)
