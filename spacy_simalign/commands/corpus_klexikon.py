"""`klexikon FOLDER OUT_DIR`: read Klexikon/Wikipedia article pairs (FOLDER/klexikon,
FOLDER/wiki), clean them, drop short Wikipedia articles, write train/validation/test pair
JSONL (length-stratified, fixed seed) and the lead-3 baseline, and print the counts. Its files are
written all or none (corpus.export_folder), and an OUT_DIR that already holds one of them is refused
before any work unless --overwrite, which replaces only those files."""

import os
import statistics

from ..core.output_paths import Paths
from ..corpus.export_folder import check_free, staged_export
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
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the files of an earlier run in the output folder (only those; others are kept)",
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
    check_free(args.output, OUTPUT_FILES, args.overwrite, card=False)  # before the articles are read
    sides = tuple(s.strip() for s in args.sides.split(",") if s.strip())
    settings = KlexikonSettings(args.skip, sides, args.min_paragraphs, args.seed)
    splits, lead3, report = run_pipeline(args.folder, settings)
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
    with staged_export(args.output, OUTPUT_FILES, args.overwrite, [args.folder], card=False) as stage:
        for name, records in splits.items():
            with atomic_output(os.path.join(stage, f"{name}.jsonl")) as handle:
                for record in records:
                    handle.write(dump_line(record))
        with atomic_output(os.path.join(stage, "lead3.jsonl")) as handle:
            for row in lead3:
                handle.write(dump_line(row))
        with atomic_output(os.path.join(stage, "counts.txt")) as handle:
            handle.write(text + "\n")
    print(text)
    return 0
