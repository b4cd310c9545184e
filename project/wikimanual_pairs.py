"""Wiki-Manual dev as pair JSONL with gold beads, from its upstream CSV (or a copy already made), for
the `data` workflow (`data-wikimanual`): the English gold that the Wiki-Manual run of `adapt` learns from.

Wiki-Manual (Jiang et al., ACL 2020) as regrouped into n:m alignments by CognitiveSimplification
(eytan-c/CognitiveSimplification, data/base_datasets/wiki-manual-dev+revised.csv; the grouping
CC BY-NC-SA 4.0, the Wikipedia text CC BY-SA 3.0). This is the conversion that made
../shared/data/wikimanual-dev/pairs.jsonl (its recipes/wikimanual_to_jsonl.py), rule for rule, so
that the figures of docs/results.md are computed on the same file: `--md5` keeps the output only if
it is that file. The CSV is ';'-separated; each row is one group `(complex ids, simple ids)` with its
joined texts (`reg_sent`, `sim_sent`); an id is ARTICLE-LEVEL-PARAGRAPH-SENTENCE, level 1 English
Wikipedia (complex), 0 Simple English Wikipedia. Every sentence of both articles is in exactly one
row (deletions and additions have one empty side), so articles, paragraphs and sentence order are
rebuilt from the ids. A group's joined text is cut back into its sentences at sentence ends not
after an abbreviation; an article with a group that does not cut into as many sentences as it has
ids is left out (said on stderr), as the recipe leaves it out. Gold: the groups with both sides.

    python project/wikimanual_pairs.py data/wikimanual-dev/pairs.jsonl --csv CSV [--md5 MD5]
    python project/wikimanual_pairs.py data/wikimanual-dev/pairs.jsonl --pairs PAIRS.jsonl [--md5 MD5]

`--pairs` (offline, `--pairs ../shared/data/wikimanual-dev/pairs.jsonl`) copies a
converted file instead, checked by the same checksum. Bad input: one line `error: FILE:LINE: ...`,
exit status 2, nothing written."""

import argparse
import ast
import csv
import hashlib
import json
import os
import re
import sys
from collections import defaultdict
from pathlib import Path

from spacy_simalign.core.errors import InputError

END = re.compile(r'(?<=[.!?])["\'\)\]]*\s+(?=["\'(\[]?[A-Z0-9])')
ABBR = re.compile(
    r"(?:\b(?:St|Mt|Mr|Mrs|Ms|Dr|Jr|Sr|No|Co|Inc|Ltd|Gen|Col|Lt|Sgt|vs|etc|approx|ca)|\b[A-Z]|\b(?:[A-Z]\.)+[A-Z])"
    r"\.[\"'\)\]]*\s+$"
)
COLUMNS = ("alignment", "reg_sent", "sim_sent")
COMPLEX, SIMPLE = 1, 0  # the levels of the ids


class Unsplittable(ValueError):
    """A group's joined text does not cut into as many sentences as the group has ids."""


def cut(text: str, k: int):
    """The k sentences of a group's joined text (stripped), cut at sentence ends not after an abbreviation."""
    if k == 1:
        return [text.strip()]
    cuts = [m.end() for m in END.finditer(text) if not ABBR.search(text[: m.end()])]
    if len(cuts) != k - 1:
        raise Unsplittable(f"{k} sentences, {len(cuts) + 1} pieces: {text[:120]!r}")
    bounds = [0] + cuts + [len(text)]
    return [text[a:b].strip() for a, b in zip(bounds, bounds[1:])]


def key(sid: str):
    """(article, level, paragraph, sentence) of an id ARTICLE-LEVEL-PARAGRAPH-SENTENCE."""
    doc, level, para, sent = sid.rsplit("-", 3)
    return doc, int(level), int(para), int(sent)


def read_groups(path: str):
    """(sentences: article -> level -> (paragraph, sentence) -> text or None where its group did not cut,
    groups: article -> [(complex ids, simple ids)] of the groups with both sides, messages)."""
    docs = defaultdict(lambda: {SIMPLE: {}, COMPLEX: {}})
    groups, messages = defaultdict(list), []
    # opened as the recipe opens it (universal newlines), so that the texts are the same to the byte
    with open(path, encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter=";")
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"no column {', '.join(missing)} (a ';'-separated CSV with {', '.join(COLUMNS)})", path, 1)
        for row in reader:
            where = reader.line_num
            try:
                c, s = ast.literal_eval(row["alignment"] or "")
                ids = [(list(c), row["reg_sent"]), (list(s), row["sim_sent"])]
                keys = [[key(i) for i in side] for side, _ in ids]
                if any(k[1] not in (COMPLEX, SIMPLE) for side in keys for k in side):
                    raise ValueError("a level other than 0 and 1")
            except (ValueError, SyntaxError, TypeError, AttributeError, MemoryError, RecursionError):
                raise InputError(
                    f"'alignment' must be two lists of ids ARTICLE-LEVEL-PARAGRAPH-SENTENCE, got {row['alignment']!r:.80}",
                    path,
                    where,
                ) from None
            for (side, text), side_keys in zip(ids, keys):
                if not side:
                    continue
                try:
                    parts = cut(text or "", len(side))
                except Unsplittable as e:
                    messages.append(f"{path}:{where}: unsplittable: {e}")
                    parts = None
                for n, (doc, level, para, sent) in enumerate(side_keys):
                    docs[doc][level][(para, sent)] = parts[n] if parts else None
            if c and s:
                groups[keys[0][0][0]].append((keys[0], keys[1]))
    return docs, groups, messages


def pair_lines(docs, groups):
    """(the pair JSONL lines, sorted by article, the articles left out) of read_groups' output."""
    lines, skipped = [], []
    for doc in sorted(docs):
        sides, index = {}, {}
        for level in (COMPLEX, SIMPLE):
            order = sorted(docs[doc][level])
            if not order or any(docs[doc][level][p] is None for p in order):
                sides = None
                break
            paras = defaultdict(list)
            for n, (para, sent) in enumerate(order):
                paras[para].append(docs[doc][level][(para, sent)])
                index[(level, para, sent)] = n
            sides[level] = [paras[p] for p in sorted(paras)]
        if sides is None:
            skipped.append(doc)
            continue
        gold = sorted([sorted(index[k[1:]] for k in c), sorted(index[k[1:]] for k in s)] for c, s in groups[doc])
        record = {
            "id": f"wikimanual-{doc}",
            "lang": "en",
            "lang_simple": "en",
            "complex": {"paragraphs": sides[COMPLEX]},
            "simple": {"paragraphs": sides[SIMPLE]},
            "gold": gold,
        }
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return lines, skipped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("output", help="pair JSONL to write")
    ap.add_argument("--csv", default=None, help="the upstream CSV (wiki-manual-dev+revised.csv)")
    ap.add_argument("--pairs", default="", help="a converted pair JSONL to copy instead ('': convert --csv)")
    ap.add_argument("--md5", default="", help="the output's MD5 checksum, else nothing is written ('': unchecked)")
    args = ap.parse_args(argv)
    try:
        if args.pairs:
            if not os.path.isfile(args.pairs):
                raise InputError("no such file", args.pairs)
            data, what = Path(args.pairs).read_bytes(), f"copied from {args.pairs}"
        else:
            if not args.csv or not os.path.isfile(args.csv):
                raise InputError(
                    "no such file: `spacy project assets` fetches it (offline: --pairs, or the project's --vars.gold ../shared/data/wikimanual-dev/pairs.jsonl)",
                    args.csv or "--csv",
                )
            docs, groups, messages = read_groups(args.csv)
            for message in messages:
                print(message, file=sys.stderr)
            lines, skipped = pair_lines(docs, groups)
            data = "".join(lines).encode("utf-8")
            beads = sum(len(json.loads(line)["gold"]) for line in lines)
            what = f"{len(lines)} pairs, {beads} gold beads; {len(skipped)} articles left out (unsplittable groups)"
        got = hashlib.md5(data).hexdigest()
        if args.md5 and got != args.md5:
            source = args.pairs or args.csv
            raise InputError(f"the pairs have MD5 {got}, not {args.md5}: nothing written", source)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    partial = Path(str(args.output) + ".part")
    partial.write_bytes(data)
    os.replace(partial, args.output)  # whole or not at all
    print(f"{args.output}: {what} (MD5 {got})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
