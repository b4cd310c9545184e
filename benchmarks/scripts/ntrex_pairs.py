"""NTREX news: the 123 English WMT19 news documents and their human German, French and Dutch
translations as six cross-lingual pair JSONL files, from the NTREX repository archive, each kept only
with the MD5 of ../shared/data's file (all six or none).

    python scripts/ntrex_pairs.py assets/upstream/ntrex.tar.gz data --md5 en-de=MD5 ... --md5 fr-nl=MD5

NTREX-128/newstest2019-src.eng.txt and the references are line-aligned with DOCUMENT_IDS.tsv (one
document id a line, each document's lines contiguous). Gold is 1:1 by construction: segment i of a
document translates segment i; the non-English pairs meet through the English original."""

import json
import sys

from upstream import Upstream, arguments, check, done, fail, md5, write_files

SET = "ntrex-news"
FILES = {
    "en": "NTREX-128/newstest2019-src.eng.txt",
    "de": "NTREX-128/newstest2019-ref.deu.txt",
    "fr": "NTREX-128/newstest2019-ref.fra.txt",
    "nl": "NTREX-128/newstest2019-ref.nld.txt",
}
PAIRS = ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")  # complex-simple


def documents(upstream: Upstream):
    """Document ids in order of first line, and each one's line numbers (a document must be contiguous)."""
    order, lines = [], {}
    for n, line in enumerate(upstream.lines("DOCUMENT_IDS.tsv")):
        doc = line.rstrip("\n")
        if doc not in lines:
            order.append(doc)
            lines[doc] = []
        elif lines[doc][-1] != n - 1:
            fail(f"DOCUMENT_IDS.tsv: document {doc} is not contiguous")
        lines[doc].append(n)
    return order, lines


def segments(upstream: Upstream, lang: str, count: int):
    """One language's segments (stripped, a byte order mark dropped): as many as documents lines, none empty."""
    out = [line.rstrip("\n").strip() for line in upstream.lines(FILES[lang], encoding="utf-8-sig")]
    if len(out) != count or not all(out):
        fail(f"{FILES[lang]}: {len(out)} lines for {count} document ids, or an empty segment")
    return out


def pair_file(pair: str, order, lines, text) -> bytes:
    """One pair file: a line per document, each side one paragraph, gold segment k to segment k."""
    a, b = pair.split("-")
    out = []
    for doc in order:
        idx = lines[doc]
        record = {
            "id": f"ntrex-{a}-{b}-{doc}",
            "lang": a,
            "lang_simple": b,
            "complex": {"paragraphs": [[text[a][i] for i in idx]]},
            "simple": {"paragraphs": [[text[b][i] for i in idx]]},
            "gold": [[[k], [k]] for k in range(len(idx))],
        }
        out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out).encode("utf-8")


def expected_checksums(values) -> dict:
    """PAIR -> MD5 from the --md5 PAIR=MD5 options; each of the six pairs needs one."""
    given = dict(value.split("=", 1) for value in values if "=" in value)
    missing = [pair for pair in PAIRS if pair not in given]
    if missing or len(given) != len(values):
        fail(f"--md5 needs PAIR=MD5 for each of {', '.join(PAIRS)} (missing: {', '.join(missing) or 'none'})")
    return given


def main(argv=None) -> int:
    args = arguments(__doc__.splitlines()[0], "PAIR=MD5, once for each of the six pairs").parse_args(argv)
    expected = expected_checksums(args.md5)
    upstream = Upstream(args.archive)
    order, lines = documents(upstream)
    count = sum(len(idx) for idx in lines.values())
    text = {lang: segments(upstream, lang, count) for lang in FILES}
    files = {f"{pair}.jsonl": pair_file(pair, order, lines, text) for pair in PAIRS}
    for pair in PAIRS:
        check(f"{args.archive}: {SET}/{pair}.jsonl", md5(files[f"{pair}.jsonl"]), expected[pair])
    folder = f"{args.out_dir}/{SET}"
    write_files(folder, files)
    return done(folder, f"{len(files)} pair files, {len(order)} documents each")


if __name__ == "__main__":
    sys.exit(main())
