"""Input that would otherwise pass unnoticed is an error or a warning: a side
with both `text` and `paragraphs`, a sentence of invisible characters only, an empty id, ids
that differ only in Unicode normalisation, `--lang` contradicting a pair's own `lang` (a
warning: the pair's own is used), raw text that reaches the sentence aligner unsegmented (a
warning naming the fix), and an unknown paragraph method (a config error)."""

import json
import unicodedata
import warnings

import pytest
import spacy

from spacy_simalign.__main__ import main
from spacy_simalign.segmentation.sides import side_from_text

ZWSP = "\u200b"


def pair_line(pair_id="p", **changes):
    obj = {
        "id": pair_id,
        "lang": "de",
        "complex": {"paragraphs": [["Ein Satz hier.", "Noch ein Satz."]]},
        "simple": {"text": "Ein Satz. Noch einer."},
    }
    obj.update(changes)
    return json.dumps(obj, ensure_ascii=False) + "\n"


def align(tmp_path, text, *extra):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(text, encoding="utf-8")
    return main(["align", str(src), str(out), "--method", "tfidf", *extra]), src, out


@pytest.mark.parametrize(
    "line, message",
    [
        (
            pair_line(complex={"paragraphs": [["Ein Satz."]], "text": "Ein Satz."}),
            "side 'complex' has both 'paragraphs' and 'text': give one of them",
        ),
        (
            pair_line(complex={"paragraphs": [["Ein Satz.", ZWSP]]}),
            "'complex.paragraphs[0][1]' is an empty sentence (only invisible characters)",
        ),
        (
            pair_line(simple={"paragraphs": [["\u2060\ufeff\u200d "]]}),
            "'simple.paragraphs[0][0]' is an empty sentence (only invisible characters)",
        ),
        (pair_line(simple={"paragraphs": [["\u3164"]]}), "is an empty sentence (only invisible characters)"),
        (pair_line(""), "empty 'id'"),
        (pair_line(" " + ZWSP), "empty 'id'"),
        (
            pair_line("Café") + pair_line(unicodedata.normalize("NFD", "Café")),
            "(first on line 1, written with other Unicode code points: the same id once normalised, NFC)",
        ),
    ],
)
def test_quietly_accepted_pairs_are_located_errors(tmp_path, capsys, line, message):
    code, src, out = align(tmp_path, line)
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith(f"error: {src}:") and message in err and len(err.splitlines()) == 1, err
    assert not out.exists()


def test_invisible_characters_are_no_sentence_of_raw_text():
    from spacy_simalign.segmentation.rules import is_blank

    assert is_blank(ZWSP) and is_blank(" \u200c\u2060\u00ad\ufeff\u3164 ") and not is_blank("a" + ZWSP)
    assert side_from_text(f"Ein Satz. {ZWSP}", "de").sentences == ["Ein Satz."]
    side = side_from_text(f"Ein Satz.\n\n{ZWSP}\u200d\n\nNoch einer.", "de")
    assert side.sentences == ["Ein Satz.", "Noch einer."] and side.paragraphs == [[0], [1]]
    assert side_from_text(ZWSP, "de").sentences == []


def test_an_invisible_raw_side_is_an_empty_side(tmp_path, capsys):
    code, _, out = align(tmp_path, pair_line(simple={"text": ZWSP + "\n\n\ufeff"}))
    assert code == 0, capsys.readouterr().err
    got = json.loads(out.read_text(encoding="utf-8"))
    assert got["simple_sentences"] == [] and got["alignments"] == []


def test_nfc_and_nfd_ids_are_one_id_in_alignments_and_documents(tmp_path, capsys):
    nfc, nfd = "Müller", unicodedata.normalize("NFD", "Müller")
    assert nfc != nfd
    gold = tmp_path / "gold.jsonl"
    gold.write_text(pair_line(nfc, gold=[[[0], [0]]]), encoding="utf-8")
    pred = tmp_path / "pred.jsonl"
    pred.write_text("".join(json.dumps({"id": i, "alignments": []}) + "\n" for i in (nfc, nfd)), encoding="utf-8")
    assert main(["evaluate", str(gold), str(pred)]) == 2
    assert f"error: {pred}:2: duplicate id" in capsys.readouterr().err
    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        "".join(json.dumps({"id": i, "lang": "de", "text": "Ein Text."}) + "\n" for i in (nfc, nfd)), encoding="utf-8"
    )
    assert main(["match-docs", str(docs), str(docs), str(tmp_path / "m.jsonl")]) == 2
    assert f"error: {docs}:2: duplicate id" in capsys.readouterr().err


def test_lang_option_contradicting_a_pair_is_a_warning_and_the_pair_keeps_its_own(tmp_path, capsys):
    text = (
        pair_line("a")
        + pair_line("b", lang="fr")
        + pair_line("c", lang="en")
        + json.dumps({k: v for k, v in json.loads(pair_line("d")).items() if k != "lang"})
        + "\n"
    )
    code, src, out = align(tmp_path, text, "--lang", "de")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 0
    assert err[0] == (
        f"warning: {src}:2: 'lang' is 'fr' but --lang is 'de' (and 1 more lines): --lang applies "
        "only to lines without 'lang'; these keep their own"
    )
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", "b", "c", "d"]
    code, _, _ = align(tmp_path, pair_line("a") + pair_line("d"), "--lang", "de")
    assert code == 0 and "warning" not in capsys.readouterr().err


def test_unsegmented_raw_text_at_the_aligner_warns_once_with_the_fix(monkeypatch):
    from spacy_simalign.pipeline import sentence_aligner
    from spacy_simalign.pipeline.doc_pair import make_pair

    monkeypatch.setattr(sentence_aligner, "_warned_unsegmented", False)
    config = {"aligner": {"@simalign_aligners": "spacy-simalign.Tfidf.v1"}}
    text = ("Die Stadt hat neue Regeln beschlossen. Sie gelten ab Januar.", "Die Stadt hat neue Regeln. Sie gelten.")
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_sentence_aligner", config=config)
    with pytest.warns(
        UserWarning,
        match=r'raw text that no segmenter split.*nlp\.add_pipe\("simalign_segmenter", '
        r"first=True\)",
    ):
        doc = nlp(make_pair(nlp, *text))
    assert len(doc._.complex_sents) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nlp(make_pair(nlp, *text))  # once per process
        monkeypatch.setattr(sentence_aligner, "_warned_unsegmented", False)
        segmented = spacy.blank("de")
        segmented.add_pipe("simalign_segmenter")
        segmented.add_pipe("simalign_sentence_aligner", config=config)
        assert len(segmented(make_pair(segmented, *text))._.complex_sents) == 2
        presegmented = make_pair(nlp, [["Ein Satz.", "Noch einer."]], [["Ein Satz."]])
        nlp(presegmented)


def test_an_unknown_paragraph_method_is_a_config_error(capsys):
    assert main(["init-config", "nosuch", "--paragraph"]) == 2
    assert "unknown paragraph method 'nosuch' (known: jiang" in capsys.readouterr().err
    nlp = spacy.blank("de")
    with pytest.raises(Exception, match="spacy-simalign.NoSuchParagraphs.v1"):
        nlp.add_pipe(
            "simalign_paragraph_aligner",
            config={"aligner": {"@simalign_aligners": "spacy-simalign.NoSuchParagraphs.v1"}},
        )
    with pytest.raises(ValueError, match="not a paragraph aligner"):
        nlp.add_pipe(
            "simalign_paragraph_aligner", config={"aligner": {"@simalign_aligners": "spacy-simalign.Tfidf.v1"}}
        )
