"""`evaluate GOLD.jsonl PREDICTED.jsonl`: link, bead-text and paragraph-pair P/R/F1 of an
alignment JSONL file against the gold beads of a pair JSONL file."""
import json

from ..errors import InputError
from ..formats import atomic_output, read_jsonl, read_pairs
from ..scoring import AlignmentScorer
from ..structures import Bead, Side

NAME = "evaluate"
HELP = "Score predicted alignments against gold: link, bead-text and paragraph-pair P/R/F1."


def add_arguments(parser):
    parser.add_argument("gold", help="pair JSONL with a 'gold' field (pre-segmented sides)")
    parser.add_argument("predicted", help="alignment JSONL (output of align)")
    parser.add_argument("--output", default=None, help="also write the scores as JSON here")


def _side(record, name, predicted_obj) -> Side:
    if record.is_presegmented(name):
        return record.side(name)
    sents = predicted_obj.get(f"{name}_sentences")
    if not isinstance(sents, list):
        raise InputError(f"side '{name}' of '{record.id}' is raw text in the gold file and the prediction has no "
                         f"'{name}_sentences' to read its indices back")
    return Side(sents, [list(range(len(sents)))], record.lang)


def evaluate_files(gold_path: str, pred_path: str) -> dict:
    predicted = {}
    for number, obj in read_jsonl(pred_path):
        if not isinstance(obj.get("id"), str):
            raise InputError("missing or non-string 'id'", pred_path, number)
        if not isinstance(obj.get("alignments"), list):
            raise InputError("missing 'alignments' list", pred_path, number)
        try:
            obj["_beads"] = [Bead.from_json(b) for b in obj["alignments"]]
        except (KeyError, TypeError, IndexError, ValueError):
            raise InputError("malformed bead in 'alignments'", pred_path, number) from None
        predicted[obj["id"]] = obj
    scorer = AlignmentScorer()
    missing = 0
    for record in read_pairs(gold_path):
        if record.gold is None:
            raise InputError(f"pair '{record.id}' has no 'gold' field", gold_path, record.line)
        obj = predicted.get(record.id)
        if obj is None:
            missing += 1
            obj = {"_beads": []}
        c, s = _side(record, "complex", obj), _side(record, "simple", obj)
        scorer.add(record.gold, obj["_beads"], c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of())
    scores = scorer.scores()
    scores["missing_predictions"] = missing
    return scores


def format_table(scores: dict) -> str:
    lines = ["| metric | P | R | F1 |", "|---|---|---|---|"]
    for metric in ("link", "bead_text", "paragraph"):
        if metric in scores:
            m = scores[metric]
            lines.append(f"| {metric} | {m['p']:.3f} | {m['r']:.3f} | {m['f']:.3f} |")
    lines.append(f"\n{scores['docs']} documents, {scores['missing_predictions']} without a prediction")
    return "\n".join(lines)


def run(args) -> int:
    scores = evaluate_files(args.gold, args.predicted)
    print(format_table(scores))
    if args.output:
        with atomic_output(args.output) as handle:
            json.dump(scores, handle, indent=2)
    return 0
