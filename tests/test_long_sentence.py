"""One huge pre-segmented sentence costs bounded memory. What a sentence
contributes to the sentence encoder and to the CRF's pair TF-IDF is its first
limits.MAX_TEXT_CHARS characters; the sentence itself is kept whole and aligned. (The memory
itself is measured by benchmarks/scripts/bench_long_sentence.py, not here: no timed or sized unit tests.)"""

import json

import numpy as np
from conftest import HashedNgramSimilarity, with_fake_encoder

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.crf import tfidf
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.core.text_limits import MAX_TEXT_CHARS


def long_text(chars: int) -> str:
    words = " ".join(f"wort{k % 1009}" for k in range(chars // 5))
    return (words + " ende" * chars)[:chars]


def test_align_hands_the_encoder_at_most_the_cap_and_keeps_the_sentence(tmp_path, monkeypatch):
    """The default CRF with the fake encoder (every embedding encoder caps in the same base class)."""
    seen = []
    encode = HashedNgramSimilarity._encode_batch

    def recording(self, texts, lang):
        seen.extend(len(t) for t in texts)
        return encode(self, texts, lang)

    monkeypatch.setattr(HashedNgramSimilarity, "_encode_batch", recording)
    config = tmp_path / "crf.cfg"
    config.write_text(with_fake_encoder(method_config("crf")).to_str(), encoding="utf-8")
    sentence = long_text(3 * MAX_TEXT_CHARS)
    row = {
        "id": "long",
        "lang": "de",
        "complex": {"paragraphs": [["Ein kurzer Satz.", sentence, "Noch ein Satz."]]},
        "simple": {"text": "Ein kurzer Satz. Noch ein Satz."},
    }
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert main(["align", str(src), str(out), "--config", str(config)]) == 0
    assert seen and max(seen) <= MAX_TEXT_CHARS, f"the encoder got a text of {max(seen)} characters"
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["id"] == "long" and got["simple_sentences"] == ["Ein kurzer Satz.", "Noch ein Satz."]
    assert all(0 <= i < 3 for bead in got["alignments"] for i in bead["complex"])


def test_texts_equal_up_to_the_cap_have_one_vector():
    prefix = long_text(MAX_TEXT_CHARS)
    encoder = HashedNgramSimilarity()
    a, b = encoder.encode([prefix + " ganz anders am Schluss", prefix + " völlig verschieden"], "de")
    assert np.array_equal(a, b)
    short = encoder.encode(["Ein Satz.", "Ein anderer Satz."], "de")
    assert not np.array_equal(short[0], short[1])


def test_the_crf_tfidf_counts_only_the_first_characters_of_a_sentence():
    prefix = long_text(MAX_TEXT_CHARS)
    for analyzer in ("word", "char"):
        capped = tfidf._tfidf_cells([prefix, "Ein Satz."], analyzer)
        longer = tfidf._tfidf_cells([prefix + " zusatzwortxyz qqq", "Ein Satz."], analyzer)
        assert capped[3] == longer[3], f"{analyzer}: the text past the cap added features"
        for part_a, part_b in zip(capped[:3], longer[:3]):
            assert np.array_equal(part_a, part_b)
