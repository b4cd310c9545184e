"""Simple German Corpus dev: the hand-aligned document pairs of six websites as pair JSONL, from the
Simple-German-Corpus repository archive, kept only with the MD5 of ../shared/data's file.

    python scripts/sgc_pairs.py assets/upstream/simple-german-corpus.tar.gz data --md5 MD5

results/hand_aligned/HASH.simple lists the simple sentences; line i of HASH.normal is the standard
sentence that simple line i was aligned to. The full articles are not in the repository, so the
complex side is the distinct standard sentences in order of first appearance and the simple side
every line (nothing unaligned). results/websites_samples.pkl names each pair's website; it is
unpickled only when it holds nothing but list and string opcodes (a pickle can run any code)."""

import hashlib
import json
import pickle
import pickletools
import sys
from pathlib import PurePosixPath

from upstream import Upstream, convert_one_file, fail

SET = "sgc-dev"
FOLDER = "results/hand_aligned"
PICKLE = "results/websites_samples.pkl"
# the six websites of ../shared/data/sgc-dev (its README): the corpus's other two judge the defaults
WEBSITES = (
    "mdr.de",
    "stadt-koeln.de",
    "lebenshilfe-main-taunus.de",
    "behindertenbeauftragter.de",
    "sozialpolitik.com",
    "taz.de",
)
# a list of [simple path, normal path] lists of strings needs no other opcode; anything else could call code
SAFE_OPCODES = {
    "PROTO",
    "FRAME",
    "EMPTY_LIST",
    "MEMOIZE",
    "MARK",
    "APPENDS",
    "APPEND",
    "SHORT_BINUNICODE",
    "BINUNICODE",
    "STOP",
}


def safe_unpickle(data: bytes, name: str):
    """The pickled lists of strings; refused, before anything is unpickled, if any opcode is another."""
    try:
        ops = {op.name for op, _, _ in pickletools.genops(data)}
    except ValueError as error:
        fail(f"{name}: not a pickle ({error})")
    if not ops <= SAFE_OPCODES:
        fail(
            f"{name}: holds opcodes other than list and string ones ({', '.join(sorted(ops - SAFE_OPCODES))}): not unpickled"
        )
    return pickle.loads(data)


def website_of_pairs(samples) -> dict:
    """Pair hash -> website: the hash is the decimal SHA-1 of the two file names joined by '___'."""
    out = {}
    for simple, normal in samples:
        joined = PurePosixPath(simple).name + "___" + PurePosixPath(normal).name
        out[str(int(hashlib.sha1(joined.encode()).hexdigest(), 16))] = simple.split("/")[0]
    return out


def side_lines(upstream: Upstream, name: str):
    """The lines of one side file, split on '\\n' after open()'s newline translation."""
    return upstream.text(f"{FOLDER}/{name}").split("\n")


def pair_record(upstream: Upstream, pair: str, website: str) -> dict:
    """One pair: the distinct standard sentences as the complex side, each a bead with the simple lines aligned to it."""
    simple, normal = side_lines(upstream, pair + ".simple"), side_lines(upstream, pair + ".normal")
    while simple and normal and not simple[-1].strip() and not normal[-1].strip():
        simple.pop()
        normal.pop()
    if len(simple) != len(normal) or not all(x.strip() for x in simple + normal):
        fail(f"{FOLDER}/{pair}: .simple and .normal differ in length or hold an empty line")
    simple, normal = [x.strip() for x in simple], [x.strip() for x in normal]
    complex_, index, beads = [], {}, []
    for j, sentence in enumerate(normal):
        if sentence not in index:
            index[sentence] = len(complex_)
            complex_.append(sentence)
            beads.append([])
        elif sentence != normal[j - 1]:
            fail(f"{FOLDER}/{pair}: a standard sentence comes back after another, its order is lost")
        beads[index[sentence]].append(j)
    return {
        "id": f"sgc-{website}-{pair[:12]}",
        "lang": "de",
        "lang_simple": "de",
        "website": website,
        "complex": {"paragraphs": [complex_]},
        "simple": {"paragraphs": [simple]},
        "gold": [[[k], bead] for k, bead in enumerate(beads)],
    }


def pair_lines(upstream: Upstream) -> bytes:
    """The pair JSONL of the six websites' pairs, in the order of their hashes."""
    sites = website_of_pairs(safe_unpickle(upstream.read(PICKLE), PICKLE))
    lines = []
    for pair in sorted({name.rsplit(".", 1)[0] for name in upstream.listdir(FOLDER)}):
        website = sites.get(pair, "unknown").replace("www.", "")
        if website in WEBSITES:
            lines.append(json.dumps(pair_record(upstream, pair, website), ensure_ascii=False) + "\n")
    return "".join(lines).encode("utf-8")


def main(argv=None) -> int:
    return convert_one_file(__doc__.splitlines()[0], SET, pair_lines, argv)


if __name__ == "__main__":
    sys.exit(main())
