"""The Doc pair: both sides in one Doc, plain-data extensions, serialisation, Examples."""

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Example

from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import Bead
from spacy_simalign.pipeline import doc_pair as pair


def test_presegmented_sides_keep_their_sentences_and_paragraphs(deplain_pairs):
    nlp = spacy.blank("de")
    record = deplain_pairs[0]
    doc = pair.make_pair(nlp, record["complex"]["paragraphs"], record["simple"]["paragraphs"], id=record["id"])
    for name in ("complex", "simple"):
        side = pair.side_of(doc, name)
        gold = [" ".join(s.split()) for p in record[name]["paragraphs"] for s in p]
        assert side.sentences == gold
        assert [len(p) for p in side.paragraphs] == [len(p) for p in record[name]["paragraphs"]]
    assert doc._.pair_id == record["id"]
    assert doc._.complex_side.end == doc._.simple_side.start


def test_beads_read_back_from_both_sides(deplain_pairs):
    nlp = spacy.blank("de")
    record = deplain_pairs[1]
    doc = pair.make_pair(nlp, record["complex"]["paragraphs"], record["simple"]["paragraphs"], gold=record["gold"])
    bead = doc._.beads[0]
    first = doc._.complex_sents[bead.complex[0]]
    aligned = [s.text for s, _ in first._.aligned]
    assert aligned == [doc._.simple_sents[j].text for j in bead.simple]
    back = doc._.simple_sents[bead.simple[0]]._.aligned
    assert first.text in [s.text for s, _ in back]
    assert first._.side == "complex" and back[0][0]._.side == "complex"


def test_docbin_round_trip_keeps_pair_and_alignment(deplain_pairs):
    nlp = spacy.blank("de")
    docs = [
        pair.make_pair(nlp, r["complex"]["paragraphs"], r["simple"]["paragraphs"], id=r["id"], gold=r["gold"])
        for r in deplain_pairs[:3]
    ]
    data = DocBin(docs=docs, store_user_data=True).to_bytes()
    loaded = list(DocBin(store_user_data=True).from_bytes(data).get_docs(nlp.vocab))
    for a, b in zip(docs, loaded):
        assert b._.beads == a._.beads
        assert pair.side_of(b, "simple") == pair.side_of(a, "simple")
        assert b._.pair_id == a._.pair_id


def test_example_holds_predicted_and_gold_pair(deplain_pairs):
    nlp = spacy.blank("de")
    r = deplain_pairs[2]
    predicted = pair.make_pair(nlp, r["complex"]["paragraphs"], r["simple"]["paragraphs"])
    reference = pair.make_pair(nlp, r["complex"]["paragraphs"], r["simple"]["paragraphs"], gold=r["gold"])
    eg = Example(predicted, reference)
    assert eg.reference._.beads == [Bead.from_json(b) for b in r["gold"]]
    assert eg.predicted._.beads == []


def test_cross_lingual_pair_tokenizes_each_side_in_its_language():
    nlp = spacy.blank("de")
    doc = pair.make_pair(nlp, "Der Hund bellt.", "L'homme dort.", lang_simple="fr")
    assert [t.text for t in doc._.simple_side] == ["L'", "homme", "dort", "."]
    assert doc._.pair_info["langs"] == ["de", "fr"]


def test_a_flat_list_of_sentences_is_one_presegmented_paragraph(deplain_pairs):
    nlp = spacy.blank("de")
    record = deplain_pairs[3]
    complex_sents = [s for p in record["complex"]["paragraphs"] for s in p]
    simple_sents = [s for p in record["simple"]["paragraphs"] for s in p]
    doc = pair.make_pair(nlp, complex_sents, simple_sents)
    side = pair.side_of(doc, "complex")
    assert side.sentences == [" ".join(s.split()) for s in complex_sents]
    assert side.paragraphs == [list(range(len(complex_sents)))]
    assert len(pair.side_of(doc, "simple")) == len(simple_sents)


SPACED = [["Satz  eins hat  zwei Leerzeichen.", "Satz\tzwei hat einen Tabulator."], ["Der  dritte\t Satz."]]
PLAIN = [[" ".join(s.split()) for s in para] for para in SPACED]


def test_given_sentences_keep_their_inner_whitespace_in_the_doc_pair():
    """Given sentences are not normalised: "Satz  eins" stays "Satz  eins", a tab stays a tab."""
    nlp = spacy.blank("de")
    doc = pair.make_pair(nlp, SPACED, PLAIN)
    sentences = [s for para in SPACED for s in para]
    assert pair.side_of(doc, "complex").sentences == sentences
    assert [s.text for s in doc._.complex_sents] == sentences
    assert pair.side_of(doc, "complex").paragraphs == [[0, 1], [2]]
    assert pair.side_of(doc, "simple").sentences == [s for para in PLAIN for s in para]


def test_align_keeps_inner_whitespace_and_the_same_beads(tmp_path):
    """Through `align`: a raw-text side's output sentences keep their whitespace exactly, and the
    beads are those of the same text with single spaces."""
    import json

    from spacy_simalign.__main__ import main

    rows = [
        {
            "id": "spaced",
            "lang": "de",
            "complex": {"paragraphs": SPACED},
            "simple": {"text": "\n\n".join(" ".join(p) for p in SPACED)},
        },
        {
            "id": "plain",
            "lang": "de",
            "complex": {"paragraphs": PLAIN},
            "simple": {"text": "\n\n".join(" ".join(p) for p in PLAIN)},
        },
    ]
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for method in ("tfidf", "crf"):
        assert main(["align", str(src), str(out), "--method", method]) == 0
        spaced, plain = (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines())
        assert spaced["simple_sentences"] == [s for para in SPACED for s in para]
        assert plain["simple_sentences"] == [s for para in PLAIN for s in para]
        assert (
            [(b["complex"], b["simple"]) for b in spaced["alignments"]]
            == [(b["complex"], b["simple"]) for b in plain["alignments"]]
            == [([0], [0]), ([1], [1]), ([2], [2])]
        )


def test_make_pair_refuses_an_empty_paragraph_or_sentence_as_a_pair_file_does(deplain_pairs):
    """Given sentences go through the pair file's own check: one line naming the side, paragraph
    and sentence, not an IndexError from deep inside the Doc's build."""
    nlp = spacy.blank("de")
    record = deplain_pairs[0]
    complex_side, simple_side = record["complex"]["paragraphs"], record["simple"]["paragraphs"]
    with pytest.raises(InputError, match=r"^'complex\.paragraphs\[1\]' has no sentences$"):
        pair.make_pair(nlp, [complex_side[0], []], simple_side)
    blank_sentence = [simple_side[0][:1] + ["  "] + simple_side[0][1:]] + simple_side[1:]
    with pytest.raises(InputError, match=r"^'simple\.paragraphs\[0\]\[1\]' is an empty sentence$"):
        pair.make_pair(nlp, complex_side, blank_sentence)
    # a flat list of sentences is one paragraph, checked the same way
    with pytest.raises(InputError, match=r"^'simple\.paragraphs\[0\]\[1\]' is an empty sentence$"):
        pair.make_pair(nlp, complex_side, [simple_side[0][0], ""])
