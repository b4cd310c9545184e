"""The README's tuned example, measured by the commands it shows: `init-config crf`, the same config
with `threshold = 0.8` under [aligner], `align` with each on the DEplain-web dev pairs, `evaluate`
against their gold. Prints the table (written to --output) and rewrites the README's sentence
between its `readme-figures` markers, so that the printed figures are the ones these commands
give today (figures typed in by hand drift as the defaults change).

    cd benchmarks && spacy project run readme-figures
    PYTHONPATH=benchmarks/helpers .venv/bin/python benchmarks/scripts/readme_figures.py [--pairs PAIRS.jsonl] [--readme README.md] [--check]

--check rewrites nothing and exits 1 when the README's block differs from what the run gives."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from confection import Config
from script_output import add_output_option, run_main

from spacy_simalign.formats.jsonl import atomic_output

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
README = ROOT / "README.md"
THRESHOLD = 0.8
BLOCK = re.compile(r"(<!-- readme-figures: begin[^>]*-->\n)(.*?)(<!-- readme-figures: end -->)", re.S)


def cli(*args) -> str:
    """stdout of `python -m spacy_simalign ARGS`; a failure stops the script with its stderr."""
    env = dict(os.environ, SPACY_SIMALIGN_NO_PROGRESS="1")
    result = subprocess.run(
        [sys.executable, "-m", "spacy_simalign", *map(str, args)], capture_output=True, text=True, env=env
    )
    if result.returncode:
        raise SystemExit(f"error: spacy_simalign {' '.join(map(str, args))} failed: {result.stderr.strip()[-400:]}")
    return result.stdout


def scores(pairs: Path, config: Path, folder: Path, name: str) -> dict:
    """`align --config CONFIG` on the pairs, then `evaluate --output`: the scores JSON."""
    predicted, scored = folder / f"{name}.jsonl", folder / f"{name}.json"
    cli("align", pairs, predicted, "--config", config)
    cli("evaluate", pairs, predicted, "--output", scored)
    return json.loads(scored.read_text(encoding="utf-8"))


def sentence(default: dict, tuned: dict, docs: int) -> str:
    """The README's sentence, from the two runs' link scores."""
    d, t = default["link"], tuned["link"]
    return (
        f"On the {docs} DEplain-web dev pairs (in-sample: the shipped weights were trained on them) link\n"
        f"precision goes from {d['p']:.3f} to {t['p']:.3f} and recall from {d['r']:.3f} to {t['r']:.3f}.\n"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=Path, default=PAIRS, help="pair JSONL with gold (default: DEplain-web dev)")
    ap.add_argument("--readme", type=Path, default=README, help="the file holding the readme-figures block")
    ap.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 if the block is out of date")
    add_output_option(ap)
    args = ap.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    if not BLOCK.search(text):
        raise SystemExit(f"error: {args.readme}: no '<!-- readme-figures: begin -->' ... end block")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        default = folder / "crf.cfg"
        default.write_text(cli("init-config", "crf"), encoding="utf-8")
        config = Config().from_disk(default, interpolate=False)
        config["aligner"]["threshold"] = THRESHOLD
        tuned = folder / "precise.cfg"
        config.to_disk(tuned)
        runs = {"default (threshold 0.5)": scores(args.pairs, default, folder, "default")}
        runs[f"threshold = {THRESHOLD} under [aligner]"] = scores(args.pairs, tuned, folder, "precise")
    print(f"`align --config` then `evaluate` on {args.pairs.name} ({next(iter(runs.values()))['docs']} documents)\n")
    print("| config | link P | link R | link F1 | bead-text F1 |")
    print("|---|---:|---:|---:|---:|")
    for name, s in runs.items():
        print(
            f"| {name} | {s['link']['p']:.3f} | {s['link']['r']:.3f} | {s['link']['f']:.3f} | {s['bead_text']['f']:.3f} |"
        )
    first, second = runs.values()
    new = BLOCK.sub(lambda m: m.group(1) + sentence(first, second, first["docs"]) + m.group(3), text, count=1)
    if new == text:
        print(f"{args.readme}: up to date", file=sys.stderr)
    elif args.check:
        print(f"{args.readme}: out of date (run without --check to rewrite it)", file=sys.stderr)
        return 1
    else:
        with atomic_output(str(args.readme)) as handle:
            handle.write(new)
        print(f"{args.readme}: rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
