"""Text+Berg dev (Bleualign's German/French development article, SAC yearbook 1957) as one pair
JSONL line, from the Bleualign repository archive, kept only with the MD5 of ../shared/data's file.

    python scripts/textberg_pairs.py assets/upstream/bleualign.tar.gz data --md5 MD5

Sentences are the lines of eval/eval1957.de and eval/eval1957.fr as given (tokenised), without the
`.EOA` article markers; the gold is the `goldalign` list of eval/golddev.py, its beads with both sides
non-empty. golddev.py is read as a Python literal, never run."""

import ast
import json
import sys

from upstream import Upstream, convert_one_file, fail

SET = "textberg-dev-de-fr"
RECORD = {
    "id": "textberg-1957-dev",
    "lang": "de",
    "lang_simple": "fr",
    "corpus": "Text+Berg (SAC yearbook 1957), Bleualign dev set",
    "license": "GPL-2.0 (distributed with Bleualign)",
}


def sentences(upstream: Upstream, name: str):
    """The lines of one side (stripped), the article markers left out: the sentences as Bleualign has them."""
    return [line.rstrip("\n").strip() for line in upstream.lines(name) if line.strip() != ".EOA"]


def gold_beads(source: str, name: str):
    """The `goldalign` beads of golddev.py, read with ast.literal_eval (the file is data, not code to run)."""
    for node in ast.parse(source, name).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "goldalign" for t in node.targets):
            try:
                return ast.literal_eval(node.value)
            except ValueError:
                fail(f"{name}: goldalign is not a literal list of beads")
    fail(f"{name}: no goldalign list")


def pair_line(upstream: Upstream) -> bytes:
    """The set's one pair JSONL line: both sides one paragraph, gold the beads with both sides."""
    gold = gold_beads(upstream.text("eval/golddev.py"), "eval/golddev.py")
    record = dict(RECORD)
    record["complex"] = {"paragraphs": [sentences(upstream, "eval/eval1957.de")]}
    record["simple"] = {"paragraphs": [sentences(upstream, "eval/eval1957.fr")]}
    record["gold"] = [[list(s), list(t)] for s, t in gold if s and t]
    return (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")


def main(argv=None) -> int:
    return convert_one_file(__doc__.splitlines()[0], SET, pair_line, argv)


if __name__ == "__main__":
    sys.exit(main())
