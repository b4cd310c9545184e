"""`klexikon FOLDER OUT_DIR`: read Klexikon/Wikipedia article pairs (FOLDER/klexikon,
FOLDER/wiki), clean them, drop short Wikipedia articles, write train/validation/test pair
JSONL (length-stratified, fixed seed) and the lead-3 baseline, and print the counts."""

import os
import statistics

from ..core.output_paths import Paths
from ..corpus.klexikon import ARTICLE_FOLDERS, CLEANUP_RULES, KlexikonSettings, run_pipeline
from ..formats.jsonl import atomic_output, dump_line

NAME = "klexikon"
HELP = "Clean, filter and split Klexikon/Wikipedia article pairs; write the lead-3 baseline."


def add_arguments(parser):
    parser.add_argument("folder", help="folder with klexikon/<Title>.txt and wiki/<Title>.txt")
    parser.add_argument("output", help="folder for train/validation/test.jsonl, lead3.jsonl, counts.txt")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=sorted(CLEANUP_RULES),
        help="switch a clean-up rule off (repeatable)",
    )
    parser.add_argument("--sides", default=",".join(KlexikonSettings.sides), help="sides the clean-up rules apply to")
    parser.add_argument(
        "--min-paragraphs",
        type=int,
        default=KlexikonSettings.min_wiki_paragraphs,
        help=f"discard pairs whose Wikipedia article has fewer paragraphs (default {KlexikonSettings.min_wiki_paragraphs})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=KlexikonSettings.seed,
        help=f"seed of the stratified split (default {KlexikonSettings.seed})",
    )


OUTPUT_FILES = ("train.jsonl", "validation.jsonl", "test.jsonl", "lead3.jsonl", "counts.txt")


def paths(args) -> Paths:
    """FOLDER's two folders of articles hold documents only: no output goes into them."""
    return Paths(
        inputs=[args.folder],
        outputs=[os.path.join(args.output, name) for name in OUTPUT_FILES],
        folders=[args.output],
        document_folders=[os.path.join(args.folder, side) for side in ARTICLE_FOLDERS],
    )


def run(args) -> int:
    sides = tuple(s.strip() for s in args.sides.split(",") if s.strip())
    settings = KlexikonSettings(args.skip, sides, args.min_paragraphs, args.seed)
    splits, lead3, report = run_pipeline(args.folder, settings)
    os.makedirs(args.output, exist_ok=True)
    for name, records in splits.items():
        with atomic_output(os.path.join(args.output, f"{name}.jsonl")) as handle:
            for record in records:
                handle.write(dump_line(record))
    with atomic_output(os.path.join(args.output, "lead3.jsonl")) as handle:
        for row in lead3:
            handle.write(dump_line(row))
    lines = [
        report.table(),
        "",
        "lead-3 baseline against the whole Klexikon article (mean F1, no stemming):",
        f"{'split':<11} {'n':>4} {'ROUGE-1':>8} {'ROUGE-2':>8} {'ROUGE-L':>8}",
    ]
    for name in list(splits) + ["all"]:
        rows = [r for r in lead3 if name in ("all", r["split"])]
        if rows:
            lines.append(
                f"{name:<11} {len(rows):>4} "
                + " ".join(f"{statistics.mean(r[k] for r in rows):>8.4f}" for k in ("rouge1", "rouge2", "rougeL"))
            )
    text = "\n".join(lines)
    with atomic_output(os.path.join(args.output, "counts.txt")) as handle:
        handle.write(text + "\n")
    print(text)
    return 0
