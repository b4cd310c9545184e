"""`adapt GOLD.jsonl OUTPUT_DIR [--base PATH] [--epochs N] [--repeat N] [--seed S] [--check] ...`: the CRF
aligner fine-tuned on a few gold documents of the user's domain (aligners/crf/fine_tuning.py), saved as
a CRF weights folder for `align --model OUTPUT_DIR` (and, with --pipeline, as a spaCy pipeline
that spacy.load reads). The background documents shown beside them are the data the base was
trained on: for the shipped weights, DEplain-web dev (assets/deplain-web-dev in the repository).
A base with a wide CRF (the shipped weights, crf/choice.py) keeps it unchanged beside the adapted
one, which aligns every document the wide CRF is not surer of. `--check` also says whether adapting
helps on the user's domain, from documents adapt did not see (adapt.held_out_check).

The base (the shipped weights by default) is an input like the gold: no output may replace it,
and nothing is written into the installed package (core/output_paths.py). The --pipeline folder
is replaced whole, so before any work it must be empty, missing or an earlier pipeline, unless
--overwrite; never one holding OUTPUT_DIR, an input or the package."""

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import List

from ..core.errors import InputError
from ..core.output_paths import PACKAGE, Paths, inside
from ..core.terminal_text import safe
from ..engines.progress import add_progress_option
from . import crf_weights

NAME = "adapt"
HELP = (
    "Fine-tune the CRF aligner on a few gold documents of your domain (pair JSONL with gold), mixed with "
    "its training data; writes a CRF weights folder for `align --model`"
)
REPO_BACKGROUND = Path(__file__).resolve().parents[2] / "assets" / "deplain-web-dev" / "pairs.jsonl"


def add_arguments(parser) -> None:
    from ..aligners.crf.fine_tuning import AdaptSettings

    defaults = AdaptSettings()
    parser.add_argument(
        "gold", metavar="GOLD.jsonl", help="pair JSONL; its pairs with gold are learned from (`review` saves gold)"
    )
    parser.add_argument(
        "output", metavar="OUTPUT_DIR", help="CRF weights folder to write (config.json, model.npz; wide/ from the base)"
    )
    parser.add_argument(
        "--base", default=None, metavar="PATH", help="CRF weights folder to start from (default: shipped)"
    )
    parser.add_argument(
        "--background",
        action="append",
        default=None,
        metavar="FILE",
        help="pair JSONL with gold the base was trained on, shown once per epoch (repeatable; default: "
        f"DEplain-web dev, {REPO_BACKGROUND.relative_to(REPO_BACKGROUND.parents[2])})",
    )
    parser.add_argument("--epochs", type=int, default=defaults.epochs, help="passes (0: refit only)")
    parser.add_argument(
        "--repeat", type=int, default=defaults.repeat, help="times each gold document is shown per pass"
    )
    parser.add_argument("--learn-rate", type=float, default=defaults.learn_rate)
    parser.add_argument(
        "--refit",
        action=argparse.BooleanOptionalAction,
        default=defaults.refit,
        help="after the passes, refit the combination and bead scorer on the gold documents' decodes",
    )
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument(
        "--check",
        action="store_true",
        help="also measure whether adapting helps on your domain: each gold document aligned by the base and by "
        "adapt on the other gold documents (one more adapt per document; at least 2); prints both figures, "
        "pooled and per document. With few documents it can be wrong either way (it judges adapt on one "
        "document fewer than given): keep gold documents aside to be sure",
    )
    parser.add_argument("--lang", default=None, help="language of pairs that have no 'lang' field")
    parser.add_argument(
        "--pipeline",
        default=None,
        metavar="DIR",
        help="also save a spaCy pipeline with it here (replaces an earlier pipeline in DIR; any other files "
        "only with --overwrite)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the --pipeline folder even when it holds files that are not a spaCy pipeline (all of them)",
    )
    add_progress_option(parser)


def input_paths(args) -> List[str]:
    """What adapt reads: the gold, the background files (by default DEplain-web dev) and the base's
    files (by default the shipped weights')."""
    from ..aligners.crf.aligner import DEFAULT_WEIGHTS, weights_file

    base = Path(args.base) if args.base else DEFAULT_WEIGHTS
    background = args.background or [str(REPO_BACKGROUND)]
    return [args.gold, *background, str(base / "config.json"), str(weights_file(base))]


def paths(args) -> Paths:
    """The gold, the background and the base's files are read; OUTPUT_DIR's two files are replaced."""
    from ..aligners.crf.aligner import WEIGHTS_FILE

    out = [os.path.join(args.output, name) for name in ("config.json", WEIGHTS_FILE)]
    return Paths(inputs=input_paths(args), outputs=out, folders=[args.output, args.pipeline])


def check_pipeline_folder(args) -> None:
    """Refuse (InputError, before any work) a --pipeline folder whose replacement would delete what
    is not an earlier pipeline: an input, the package or OUTPUT_DIR in it (even with --overwrite),
    or any other file unless --overwrite (pipeline/saved.foreign_entries)."""
    from ..pipeline.saved import foreign_entries

    folder = args.pipeline
    if not folder:
        return
    for source in [PACKAGE, *input_paths(args), args.base]:
        if source and inside(source, folder):
            what = f"the installed spacy_simalign package ({PACKAGE})" if source == PACKAGE else f"the input {source}"
            raise InputError(
                f"--pipeline folder holds {what}, which replacing the folder would delete: "
                "choose another folder (nothing was written)",
                folder,
            )
        if source and os.path.isdir(source) and inside(folder, source):
            raise InputError(
                f"--pipeline folder is inside the input folder {source}: choose another folder (nothing was written)",
                folder,
            )
    if inside(args.output, folder) or inside(folder, args.output):
        raise InputError(f"--pipeline and OUTPUT_DIR ({args.output}) must be two separate folders", folder)
    if not os.path.isdir(folder) or args.overwrite:
        return
    foreign = foreign_entries(folder)
    if foreign:
        shown = ", ".join(foreign[:4]) + (f" and {len(foreign) - 4} more" if len(foreign) > 4 else "")
        raise InputError(
            f"--pipeline folder holds files that are not an earlier pipeline ({shown}): choose an empty or new "
            "folder, or give --overwrite to replace the folder with all it holds",
            folder,
        )


def gold_pairs(path: str, lang, what: str = "GOLD.jsonl"):
    """(the training pairs of the pairs that have gold, how many have none) of a pair JSONL file:
    a file that `review` saves gold into as the user goes, so the pairs not reviewed yet are
    skipped; bad gold or input is a one-line error, as for `align`."""
    from ..formats.pair_jsonl import read_pairs

    if not os.path.isfile(path):
        raise InputError("no such file", path)
    records = list(read_pairs(path, default_lang=lang))
    pairs = [record.training_pair(path) for record in records if record.gold is not None]
    if not pairs:
        raise InputError(f"no pair has gold ({len(records)} pairs): {what} needs at least one", path)
    return pairs, len(records) - len(pairs)


def save_atomically(aligner, folder: str) -> None:
    """Save into a fresh folder beside `folder`, then move its files in: no half-written folder.
    An earlier save's wide/ CRF folder is replaced, or removed when the new aligner has none."""
    from ..aligners.crf.choice import WIDE_FOLDER

    Path(folder).mkdir(parents=True, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".adapt-", dir=str(Path(folder).resolve().parent))
    try:
        aligner.save(staging)
        names = os.listdir(staging)
        for name in sorted(names, key=lambda n: n == "config.json"):  # config.json last
            target = os.path.join(folder, name)
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target)  # os.replace moves a folder only onto nothing or an empty one
            os.replace(os.path.join(staging, name), target)
        stale = os.path.join(folder, WIDE_FOLDER)
        if WIDE_FOLDER not in names and os.path.isdir(stale):
            shutil.rmtree(stale)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def check_table(check) -> str:
    """The held-out check's figures (adapt.HeldOutCheck) as the lines `adapt --check` prints."""
    docs = check.base["docs"]
    lines = [f"held out: each of the {docs} gold documents aligned by the base and by adapt on the other {docs - 1}"]
    lines.append(f"{'':<10} {'link P':>7} {'link R':>7} {'link F1':>8} {'bead-text F1':>13}")
    for name, scores in (("base", check.base), ("adapted", check.adapted)):
        link = scores["link"]
        lines.append(
            f"{name:<10} {link['p']:>7.3f} {link['r']:>7.3f} {link['f']:>8.3f} {scores['bead_text']['f']:>13.3f}"
        )
    verdict = "helps" if check.helps else "does not help"
    lines.append(
        f"adapting {verdict} on these documents (bead-text F1 {check.adapted['bead_text']['f'] - check.base['bead_text']['f']:+.3f})"
    )
    if check.documents:
        width = max(len("document"), *(len(safe(doc, newlines=False)) for doc, _, _ in check.documents))
        lines.append(f"{'document':<{width}} {'base':>6} {'adapted':>8}   (bead-text F1, each held out)")
        for doc, before, after in check.documents:
            lines.append(f"{safe(doc, newlines=False):<{width}} {before:>6.3f} {after:>8.3f}")
        better = sum(after > before for _, before, after in check.documents)
        worse = sum(after < before for _, before, after in check.documents)
        lines.append(f"adapted better on {better}, worse on {worse} of the {len(check.documents)} documents")
    return "\n".join(lines)


def unchecked_note(documents: int) -> str:
    """What adapt says when it did not check itself: adapted weights can align the user's domain
    worse than the base (with one gold document it lost on some domains, docs/adapt.md), and only
    documents it did not learn from can tell."""
    if documents < 2:
        return (
            "note: adapted on 1 gold document, which cannot be checked (--check leaves one document out and needs "
            "2): with one document adapting can align your domain worse than the base; add gold and use --check "
            "before relying on it"
        )
    return (
        f"note: not checked whether adapting helps on your documents: adapt --check (one more adapt per document, "
        f"{documents} here) says so before you rely on it"
    )


def run(args) -> int:
    from ..core.extras import check_installed

    check_pipeline_folder(args)
    check_installed("train", "torch", "adapt (training the CRF aligner)")
    from ..aligners.crf.aligner import CRFAligner
    from ..aligners.crf.fine_tuning import AdaptSettings, adapted_aligner, held_out_check, schedule
    from ..aligners.crf.train import featurize_all
    from ..core.setting_checks import check_settings
    from ..engines.progress import progress_bar

    given = {"epochs": args.epochs, "repeat": args.repeat, "learn_rate": args.learn_rate}
    check_settings(AdaptSettings, given, flags=True)  # named as the options, before the class checks them
    settings = AdaptSettings(args.epochs, args.repeat, args.learn_rate, args.refit, args.seed)
    base = crf_weights(args.base)
    background_files = args.background or [str(REPO_BACKGROUND)]
    if args.background is None and not REPO_BACKGROUND.is_file():
        raise InputError("the DEplain-web dev pairs are not here (a repository checkout has them): pass --background")
    t0 = time.time()
    pairs, without = gold_pairs(args.gold, args.lang)
    if args.check and len(pairs) < 2:
        raise InputError(
            f"--check leaves one gold document out: it needs at least 2 with gold, got {len(pairs)}", args.gold
        )
    background = [p for f in background_files for p in gold_pairs(f, args.lang or "de", "--background")[0]]
    probe = CRFAligner.load(base)
    skipped = f" ({without} pairs without gold skipped)" if without else ""
    print(
        f"adapt: {len(pairs)} gold documents{skipped}, {len(background)} background documents; features ...",
        file=sys.stderr,
    )
    inputs = featurize_all(probe, pairs) if settings.epochs else []  # only fine-tuning reads them
    needs_plain = settings.refit or args.check  # the check aligns the gold documents
    plain = featurize_all(probe, pairs, with_gold=False) if needs_plain else []
    background_inputs = featurize_all(probe, background) if settings.epochs else []
    steps = settings.epochs * len(schedule(len(pairs), len(background_inputs), settings.repeat))
    with progress_bar(steps, unit="steps", enabled=args.progress) as bar:
        aligner = adapted_aligner(
            base, pairs, inputs, plain, background_inputs, settings, probe.encoder, tick=lambda: bar.update(1)
        )
    save_atomically(aligner, args.output)
    if args.pipeline:
        from ..pipeline.build import carried_pipeline

        nlp = carried_pipeline(pairs[0].complex.lang, args.output)
        final = os.path.realpath(args.pipeline)  # a symbolic link stays: its target is replaced
        staging = tempfile.mkdtemp(prefix=".adapt-", dir=os.path.dirname(final))
        try:  # a failed save (a full disk) leaves the old pipeline and no staging folder
            nlp.to_disk(staging)
            shutil.rmtree(final, ignore_errors=True)
            os.replace(staging, final)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    print(
        f"adapted {base} on {len(pairs)} gold documents (x{settings.repeat}) and {len(background_inputs)} background "
        f"documents, {settings.epochs} epochs{', refit' if settings.refit else ''}, in {time.time() - t0:.0f} s "
        f"-> {args.output}" + (f" (pipeline: {args.pipeline})" if args.pipeline else ""),
        file=sys.stderr,
    )
    if args.check:  # after the save: the adapted weights are kept whatever the check says, or if it is stopped
        print(f"check: adapt once more per gold document, on the others ({len(pairs)} runs) ...", file=sys.stderr)
        one_out = settings.epochs * len(schedule(len(pairs) - 1, len(background_inputs), settings.repeat))
        with progress_bar(len(pairs) * one_out, unit="steps", enabled=args.progress) as bar:
            tick = lambda: bar.update(1)  # noqa: E731
            check = held_out_check(base, pairs, inputs, plain, background_inputs, settings, probe.encoder, tick)
        print(check_table(check))
    else:
        print(unchecked_note(len(pairs)), file=sys.stderr)
    return 0
