"""TransRead dev: three English novels and their French translations (excerpts) with their gold
sentence alignments as pair JSONL, from the TransReadAlignments repository archive, kept only with
the MD5 of ../shared/data's file.

    python scripts/transread_pairs.py assets/upstream/transread.tar.gz data --md5 MD5

dat/novels/BOOK_EN-FR/ holds cut_BOOK_en.xml and cut_BOOK_fr.xml (the aligned part of each book) and
BOOK_sent_align_en-fr.xml (the links). complex = English, simple = French; a sentence is the <w>
tokens of an <s> joined by one space (the corpus is tokenised), a paragraph a <p>. Links with an
empty side are dropped: a sentence in no bead is unaligned."""

import io
import json
import sys
import xml.etree.ElementTree as ET

from upstream import Upstream, convert_one_file, fail

SET = "transread-dev-en-fr"
NOVELS = "dat/novels"
BOOKS = ("Emma", "JaneEyre", "TheLastOfTheMohicans")  # the dev books; the others judge the defaults


def xml_root(upstream: Upstream, name: str):
    """The root element of an XML file of the archive."""
    return ET.parse(io.BytesIO(upstream.read(name))).getroot()


def read_side(upstream: Upstream, name: str):
    """(paragraphs of sentences, sentence id -> global index) of one side's XML."""
    paragraphs, ids = [], []
    for p in xml_root(upstream, name).iter("p"):
        sentences = []
        for s in p.iter("s"):
            text = " ".join(w.text.strip() for w in s.iter("w") if w.text and w.text.strip())
            if not text:
                fail(f"{name}: empty sentence {s.get('id')}")
            sentences.append(text)
            ids.append(s.get("id"))
        if sentences:
            paragraphs.append(sentences)
    index = {sid: n for n, sid in enumerate(ids)}
    if len(index) != len(ids):
        fail(f"{name}: duplicate sentence ids")
    return paragraphs, index


def gold_beads(upstream: Upstream, name: str, en_index: dict, fr_index: dict):
    """The links with both sides, as [English indices, French indices], in the file's order."""
    beads, seen = [], set()
    for link in xml_root(upstream, name).iter("link"):
        source, target = link.get("xtargets").split(";")
        bead = [sorted(en_index[x] for x in source.split()), sorted(fr_index[x] for x in target.split())]
        if not bead[0] or not bead[1]:
            continue
        key = (tuple(bead[0]), tuple(bead[1]))
        if key in seen:
            fail(f"{name}: duplicate link {key}")
        seen.add(key)
        beads.append(bead)
    return beads


def book_record(upstream: Upstream, book: str) -> dict:
    """One novel as a pair: English complex, French simple, the gold beads."""
    folder = f"{NOVELS}/{book}_EN-FR"
    en, en_index = read_side(upstream, f"{folder}/cut_{book}_en.xml")
    fr, fr_index = read_side(upstream, f"{folder}/cut_{book}_fr.xml")
    gold = gold_beads(upstream, f"{folder}/{book}_sent_align_en-fr.xml", en_index, fr_index)
    return {
        "id": f"transread-{book}",
        "lang": "en",
        "lang_simple": "fr",
        "complex": {"paragraphs": en},
        "simple": {"paragraphs": fr},
        "gold": gold,
    }


def pair_lines(upstream: Upstream) -> bytes:
    """The pair JSONL of the dev books, in the order of their folder names."""
    books = sorted(BOOKS, key=lambda book: f"{book}_EN-FR")
    return "".join(json.dumps(book_record(upstream, b), ensure_ascii=False) + "\n" for b in books).encode("utf-8")


def main(argv=None) -> int:
    return convert_one_file(__doc__.splitlines()[0], SET, pair_lines, argv)


if __name__ == "__main__":
    sys.exit(main())
