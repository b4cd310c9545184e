"""The sentence aligner component on real DEplain pairs: the standard set for a trainable
component (add_pipe, errors before initialize, empty and one-sentence pairs, to_disk /
spacy.load round trip, overfitting through nlp.update) and the PairCorpus.v1 reader."""

import json

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import registry

from spacy_simalign.core.errors import InputError
from spacy_simalign.pipeline import doc_pair as pair
from spacy_simalign.pipeline.readers import PairCorpus, predicted_doc
from spacy_simalign.pipeline.scorer import score_examples
from spacy_simalign.pipeline.sentence_aligner import SentenceAligner

N_SMALL = 3


def small_pairs(deplain_pairs, n=N_SMALL):
    """The n DEplain pairs with the fewest sentences (real gold, quick to featurize)."""

    def size(obj):
        return sum(len(p) for side in ("complex", "simple") for p in obj[side]["paragraphs"])

    return sorted(deplain_pairs, key=lambda o: (size(o), o["id"]))[:n]


def examples_of(nlp, records):
    out = []
    for obj in records:
        reference = pair.make_pair(
            nlp, obj["complex"]["paragraphs"], obj["simple"]["paragraphs"], obj["lang"], id=obj["id"], gold=obj["gold"]
        )
        out.append(Example(predicted_doc(reference), reference))
    return out


CRF = "spacy-simalign.CRFAligner.v3"
MASSALIGN = {"aligner": {"@simalign_aligners": "spacy-simalign.MASSAlign.v1"}}


def fresh_pipeline(**training):
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    training = {"@simalign_aligners": "spacy-simalign.CRFTraining.v1", "cross_lingual_rate": 0.0, **training}
    nlp.add_pipe(
        "simalign_sentence_aligner",
        config={"aligner": {"@simalign_aligners": CRF, "weights": None, "training": training}},
    )
    return nlp


def gold_links(doc):
    return {link for bead in doc._.beads for link in bead.links()}


@pytest.fixture(scope="module")
def trained(deplain_pairs):
    """A pipeline overfitted on the three smallest pairs through nlp.update, with its
    examples and the number of updates it took to predict them perfectly (None: never)."""
    nlp = fresh_pipeline()
    examples = examples_of(nlp, small_pairs(deplain_pairs))
    nlp.initialize(lambda: examples)

    def perfect():
        predicted = [nlp(predicted_doc(eg.reference)) for eg in examples]
        return all(gold_links(p) == gold_links(eg.reference) for p, eg in zip(predicted, examples))

    perfect_after = -1 if perfect() else None  # -1: perfect before any update (the test must fail then)
    for step in range(1, 81):
        losses = {}
        for eg in examples:
            nlp.update([eg], losses=losses)
        if perfect_after is None and step % 5 == 0 and perfect():
            perfect_after = step
            break
    return nlp, examples, perfect_after


def test_add_pipe_defaults():
    nlp = spacy.blank("de")
    aligner = nlp.add_pipe("simalign_sentence_aligner")
    assert isinstance(aligner, SentenceAligner)
    cfg = nlp.config["components"]["simalign_sentence_aligner"]
    assert cfg["aligner"]["@simalign_aligners"] == CRF and cfg["aligner"]["weights"] == "shipped"
    assert aligner.is_trainable
    meta = nlp.get_pipe_meta("simalign_sentence_aligner")
    assert meta.assigns == ["doc._.alignment_data"] and meta.requires == ["token.is_sent_start"]
    assert cfg["scorer"] == {"@scorers": "spacy-simalign.alignment_scorer.v1"} and aligner.scorer is score_examples


def test_pipeline_analysis_names_the_missing_segmenter():
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_sentence_aligner", config=MASSALIGN)
    assert nlp.analyze_pipes()["problems"]["simalign_sentence_aligner"] == ["token.is_sent_start"]
    nlp.add_pipe("simalign_segmenter", first=True)
    assert nlp.analyze_pipes()["problems"]["simalign_sentence_aligner"] == []


def test_untrained_crf_raises_clear_error_before_initialize(deplain_pairs):
    nlp = fresh_pipeline()
    (eg,) = examples_of(nlp, small_pairs(deplain_pairs, 1))
    with pytest.raises(ValueError, match=r"no weights yet.*nlp.initialize"):
        nlp(predicted_doc(eg.reference))
    with pytest.raises(ValueError, match=r"before initialize"):
        nlp.update([eg])


def test_plain_doc_is_refused_with_a_clear_error():
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_sentence_aligner", config=MASSALIGN)
    with pytest.raises(ValueError, match="expects a Doc pair"):
        nlp("Ein Satz. Noch einer.")


def test_lexical_method_aligns_without_training(deplain_pairs):
    nlp = spacy.blank("de")
    aligner = nlp.add_pipe("simalign_sentence_aligner", config=MASSALIGN)
    assert not aligner.is_trainable
    examples = examples_of(nlp, small_pairs(deplain_pairs))
    nlp.initialize(lambda: examples)  # nothing to train: a no-op
    assert nlp.update(examples) == {"simalign_sentence_aligner": 0.0}
    for eg in examples:
        eg.predicted = nlp(eg.predicted)
    assert score_examples(examples)["align_link_f"] > 0.5


def test_initialize_fits_the_combination_on_held_out_documents(deplain_pairs):
    nlp = fresh_pipeline(combination_epochs=1)
    examples = examples_of(nlp, small_pairs(deplain_pairs, 5))
    nlp.initialize(lambda: examples)
    weights = nlp.get_pipe("simalign_sentence_aligner").aligner.config["combination_weights"]
    assert weights is not None and len(weights) > 1


def test_wide_data_needs_an_aligner_with_a_wide_crf_and_a_readable_gold(deplain_pairs, tmp_path):
    """initialize(wide_data=...) ([initialize.components], spacy train --paths.wide) trains the CRF's
    wide CRF: another aligner has none, and a path that is not gold is a one-line error."""
    nlp = spacy.blank("de")
    lexical = nlp.add_pipe("simalign_sentence_aligner", config=MASSALIGN)
    examples = examples_of(nlp, small_pairs(deplain_pairs))
    with pytest.raises(InputError, match="wide_data: this aligner has no wide CRF"):
        lexical.initialize(lambda: examples, nlp=nlp, wide_data=str(tmp_path))
    nlp = fresh_pipeline()
    component = nlp.get_pipe("simalign_sentence_aligner")
    with pytest.raises(InputError, match="no such file or folder"):
        component.initialize(lambda: examples, nlp=nlp, wide_data=str(tmp_path / "missing.jsonl"))
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="no gold documents in the wide data"):
        component.initialize(lambda: examples, nlp=nlp, wide_data=str(tmp_path / "empty.jsonl"))
    component.initialize(lambda: examples, nlp=nlp, wide_data="")  # "" (the project's default): one CRF
    assert component.aligner.wide is None


def test_overfits_three_pairs_through_nlp_update(trained):
    nlp, examples, perfect_after = trained
    assert perfect_after != -1, "the fresh CRF was perfect before training: the test proves nothing"
    assert perfect_after is not None, "the CRF did not reach perfect links on its 3 training pairs in 80 epochs"
    scored = [Example(nlp(predicted_doc(eg.reference)), eg.reference) for eg in examples]
    scores = score_examples(scored)
    assert scores["align_link_f"] == 1.0 and scores["align_bead_text_f"] == 1.0


def test_empty_and_one_sentence_pairs(trained):
    nlp = trained[0]
    empty = nlp(pair.make_pair(nlp, [], [], "de"))
    assert empty._.beads == []
    one_side_empty = nlp(pair.make_pair(nlp, [["Der Hund schläft im Garten."]], [], "de"))
    assert one_side_empty._.beads == []
    one = nlp(pair.make_pair(nlp, [["Der Hund schläft im Garten."]], [["Der Hund schläft."]], "de"))
    assert all(b.complex == (0,) and b.simple == (0,) and 0.0 <= b.score <= 1.0 for b in one._.beads)
    raw = nlp(pair.make_pair(nlp, "Der Hund schläft im Garten.", "Der Hund schläft.", "de"))
    assert len(pair.side_of(raw, "complex")) == 1 and len(pair.side_of(raw, "simple")) == 1


def test_to_disk_spacy_load_round_trip(trained, tmp_path):
    nlp, examples, _ = trained
    nlp.to_disk(tmp_path / "pipeline")
    assert (tmp_path / "pipeline" / "simalign_sentence_aligner" / "aligner" / "model.npz").is_file()
    loaded = spacy.load(tmp_path / "pipeline")
    assert loaded.config["components"]["simalign_sentence_aligner"]["aligner"]["weights"] is None
    assert loaded.get_pipe("simalign_sentence_aligner").aligner.ready  # the folder's weights are used
    for eg in examples:
        assert loaded(predicted_doc(eg.reference))._.beads == nlp(predicted_doc(eg.reference))._.beads
    blank = fresh_pipeline()
    blank.get_pipe("simalign_sentence_aligner").from_bytes(nlp.get_pipe("simalign_sentence_aligner").to_bytes())
    doc = predicted_doc(examples[0].reference)
    assert blank(doc.copy())._.beads == nlp(doc.copy())._.beads


def test_pair_corpus_reader_from_jsonl_and_docbin(deplain_pairs, tmp_path):
    records = small_pairs(deplain_pairs)
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    nlp = spacy.blank("de")
    reader = registry.resolve({"c": {"@readers": "spacy-simalign.PairCorpus.v1", "path": str(path), "limit": 2}})["c"]
    examples = list(reader(nlp))
    assert [eg.reference._.pair_id for eg in examples] == [r["id"] for r in records[:2]]
    for eg, obj in zip(examples, records):
        assert eg.predicted._.beads == [] and eg.predicted.text == eg.reference.text
        assert [[list(b.complex), list(b.simple)] for b in eg.reference._.beads] == obj["gold"]
    docbin = DocBin(store_user_data=True, docs=[eg.reference for eg in examples])
    docbin.to_disk(tmp_path / "gold.spacy")
    again = list(PairCorpus(tmp_path / "gold.spacy")(nlp))
    assert [eg.reference._.beads for eg in again] == [eg.reference._.beads for eg in examples]
    assert [pair.side_of(eg.predicted, "simple") for eg in again] == [
        pair.side_of(eg.predicted, "simple") for eg in examples
    ]


def test_pair_corpus_reader_refuses_unusable_gold(deplain_pairs, tmp_path):
    obj = dict(small_pairs(deplain_pairs, 1)[0])
    no_gold = {k: v for k, v in obj.items() if k != "gold"}
    raw = dict(obj, simple={"text": " ".join(s for p in obj["simple"]["paragraphs"] for s in p)})
    nlp = spacy.blank("de")
    for bad, message in ((no_gold, "has no 'gold'"), (raw, "raw text")):
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps(dict(bad, id="x")) + "\n" + json.dumps(obj) + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=message) as info:
            list(PairCorpus(path)(nlp))
        assert str(info.value).startswith(f"{path}:1:")


def test_shipped_weights_align_at_once_and_initialize_starts_from_them(deplain_pairs):
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_sentence_aligner")  # weights = "shipped": no initialize needed
    examples = examples_of(nlp, small_pairs(deplain_pairs))
    before = [nlp(predicted_doc(eg.reference))._.beads for eg in examples]
    assert all(before)
    nlp.initialize(lambda: examples)  # fine-tuning starts from the shipped weights, not from scratch
    assert [nlp(predicted_doc(eg.reference))._.beads for eg in examples] == before
    nlp.update(examples[:1])
    assert nlp.get_pipe("simalign_sentence_aligner").aligner is not None


def test_bad_input_in_initialize_is_one_message_under_spacy_train(deplain_pairs, tmp_path, capsys):
    """`spacy train` runs initialize inside spaCy's show_validation_error: our InputError arrives as
    its '✘' message and exit status 1, not a traceback; Python callers still catch an InputError."""
    from spacy.cli._util import show_validation_error

    nlp = fresh_pipeline()
    component = nlp.get_pipe("simalign_sentence_aligner")
    examples = examples_of(nlp, small_pairs(deplain_pairs))
    bad = tmp_path / "wide.jsonl"
    bad.write_text('{"id": "x"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"wide.jsonl:1: invalid JSON") as caught:
        component.initialize(lambda: examples, nlp=nlp, wide_data=str(bad))
    assert "\n" not in str(caught.value)
    with pytest.raises(SystemExit) as exited, show_validation_error(hint_fill=False):
        component.initialize(lambda: examples, nlp=nlp, wide_data=str(bad))
    assert exited.value.code == 1
    printed = " ".join(capsys.readouterr().out.split())  # wasabi wraps its message at the terminal's width
    assert f"✘ {bad}:1: invalid JSON (" in printed and "Traceback" not in printed
