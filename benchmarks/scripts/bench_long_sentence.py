"""Peak memory of `align` on one pre-segmented sentence of 0.2, 1 and 5 MB: what a
sentence without boundaries costs.

Each run is a fresh `python -m spacy_simalign align` process on a pair whose complex side has
two short sentences around one long sentence of random German-looking words (the simple side
has two short sentences); its peak resident memory is the kernel's high-water mark (VmHWM of
/proc/PID/status, read by a wrapper in the child when the command has finished), printed as a
table with the wall time. Sentences are capped at limits.MAX_TEXT_CHARS characters for the
encoders and the CRF's TF-IDF (before: 4.3 GB for 1 MB with the CRF, 18.3 GB for 5 MB).

    cd benchmarks && spacy project run bench-long-sentence
    PYTHONPATH=benchmarks/helpers python benchmarks/scripts/bench_long_sentence.py [--sizes 0.2,1,5] [--methods crf,tfidf,massalign,cats-c3g]
"""

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from script_output import add_output_option, run_main

ROOT = Path(__file__).resolve().parents[2]

# runs the command in the child, then prints its own peak RSS (VmHWM: this process only)
WRAPPER = r"""
import re, sys
from spacy_simalign.__main__ import main
code = main(sys.argv[1:])
with open("/proc/self/status") as status:
    print("peak-rss-kib", re.search(r"VmHWM:\s+(\d+) kB", status.read()).group(1), file=sys.stderr)
sys.exit(code)
"""


def long_sentence(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    vocabulary = [f"wort{k}" for k in range(5000)] + ["Haus", "Stadt", "Regeln", "gelten", "und", "die", "der"]
    parts, size = [], 0
    while size < chars:
        word = rng.choice(vocabulary)
        parts.append(word)
        size += len(word) + 1
    return " ".join(parts)[:chars]


def write_pair(path: Path, chars: int) -> None:
    row = {
        "id": "long",
        "lang": "de",
        "complex": {"paragraphs": [["Ein kurzer Satz.", long_sentence(chars), "Noch ein Satz."]]},
        "simple": {"paragraphs": [["Ein kurzer Satz.", "Noch ein Satz hier."]]},
    }
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")


def measure(src: Path, out: Path, method: str):
    """(seconds, peak RSS in MiB, exit status, last stderr line) of one align run."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", WRAPPER, "align", str(src), str(out), "--method", method],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    seconds = time.perf_counter() - start
    lines = proc.stderr.strip().splitlines()
    peak = next((int(line.split()[-1]) // 1024 for line in reversed(lines) if line.startswith("peak-rss-kib")), -1)
    other = [line for line in lines if not line.startswith("peak-rss-kib")]
    return seconds, peak, proc.returncode, other[-1] if other else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="0.2,1,5", help="sentence sizes in MB (10^6 characters), comma-separated")
    ap.add_argument("--methods", default="crf,tfidf", help="align --method values, comma-separated")
    add_output_option(ap)
    args = ap.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",") if s.strip()]
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    print("| sentence | method | peak RSS (MiB) | wall s | exit |")
    print("|---|---|---|---|---|")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="simalign-long-") as tmp:
        for size in sizes:
            src = Path(tmp) / f"long-{size}.jsonl"
            write_pair(src, int(size * 1_000_000))
            for method in methods:
                seconds, peak, code, last = measure(src, Path(tmp) / "out.jsonl", method)
                failed += code != 0
                print(f"| {size:g} MB | {method} | {peak} | {seconds:.1f} | {code} |", flush=True)
                if code:
                    print(f"  {last}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_main(main))
