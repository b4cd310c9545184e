"""The simalign_anonymiser component: patterns with no model, the allow-list, sensitive
sentences, NER entities from an earlier component, serialisation, the annotated samples
and the published (already anonymised) Amsterdam rows."""

from pathlib import Path

import pytest
import spacy
from spacy.tokens import DocBin

from spacy_simalign.__main__ import main
from spacy_simalign.corpus.anonymise import (
    SENSITIVE_TEXT,
    anonymise_rows,
    anonymise_texts,
    anonymiser_pipeline,
    evaluate_sample,
)
from spacy_simalign.corpus.sentence_pairs import read_amsterdam_csv

SAMPLES = Path(__file__).parent / "data" / "anonymisation"


@pytest.fixture(scope="module")
def nl():
    return anonymiser_pipeline("nl", use_ner=False)


def test_add_pipe_on_blank_pipeline_and_empty_docs():
    nlp = spacy.blank("de")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("simalign_anonymiser")
    assert nlp.pipe_names == ["sentencizer", "simalign_anonymiser"]
    assert nlp("")._.anonymised == ""
    assert nlp("Ein Satz ohne Daten.")._.anonymised == "Ein Satz ohne Daten."
    blank = spacy.blank("en")
    blank.add_pipe("simalign_anonymiser")  # no sentence boundaries: the text is one sentence
    assert blank("Call (555) 123-4567.")._.anonymised == "Call [NUMBER]."


def test_each_placeholder(nl):
    doc = nl(
        "Mevrouw Jansen van Stichting Buurtwerk Oost woont op de Kinkerstraat 112 en is bereikbaar op 06-12345678."
    )
    assert doc._.anonymised == "Mevrouw [NAME] van [ORGANIZATION] woont op de [ADDRESS] en is bereikbaar op [NUMBER]."
    assert [s.label_ for s in doc.spans["anonymised"]] == ["NAME", "ORGANIZATION", "ADDRESS", "NUMBER"]


def test_dates_times_and_short_numbers_are_kept(nl):
    text = "Het spreekuur is op 01-02-2021 van 09.00 - 18.00 uur; bel 14020 of kom naar Amstel 1."
    assert nl(text)._.anonymised == text


def test_allow_list_and_its_config():
    text = "De GGD Amsterdam en Stichting Zonnehuis werken samen."
    default = anonymiser_pipeline("nl", use_ner=False)
    assert default(text)._.anonymised == "De GGD Amsterdam en [ORGANIZATION] werken samen."
    custom = anonymiser_pipeline("nl", use_ner=False, config={"allow_list": ["Stichting Zonnehuis"]})
    assert custom(text)._.anonymised == text


def test_sensitive_sentences_only_are_hidden(nl):
    doc = nl("Dit is gewoon. Het wachtwoord is Zomer2020. Bel 020-555 5405.")
    assert doc._.anonymised == f"Dit is gewoon. {SENSITIVE_TEXT} Bel [NUMBER]."
    extra = anonymiser_pipeline("nl", use_ner=False, config={"sensitive_patterns": [r"\bgeheim\b"]})
    assert extra("Dit blijft geheim.")._.anonymised == SENSITIVE_TEXT
    assert anonymise_texts(nl, ["Gewoon.", "Ook gewoon."], flagged=[False, True]) == ["Gewoon.", SENSITIVE_TEXT]
    with pytest.raises(ValueError, match="invalid sensitive pattern"):
        anonymiser_pipeline("nl", config={"sensitive_patterns": ["("]})


def test_ner_entities_are_used_with_the_allow_list():
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    ruler = nlp.add_pipe("entity_ruler")
    ruler.add_patterns(
        [
            {"label": "PERSON", "pattern": "Priya Shah"},
            {"label": "ORG", "pattern": "Greenfield"},
            {"label": "ORG", "pattern": "NHS"},
            {"label": "GPE", "pattern": "Leeds"},
        ]
    )
    nlp.add_pipe("simalign_anonymiser")
    doc = nlp("Priya Shah of Greenfield met the NHS in Leeds.")
    assert doc._.anonymised == "[NAME] of [ORGANIZATION] met the NHS in Leeds."
    off = spacy.blank("en")
    off.add_pipe("entity_ruler").add_patterns([{"label": "PERSON", "pattern": "Priya Shah"}])
    off.add_pipe("simalign_anonymiser", config={"use_ner": False})
    assert off("Priya Shah came.")._.anonymised == "Priya Shah came."


def test_spans_survive_docbin_and_to_disk(nl, tmp_path):
    doc = nl("Bel dhr. De Vries op 020-555 5405.")
    expected = doc._.anonymised
    data = DocBin(docs=[doc], store_user_data=True).to_bytes()
    back = list(DocBin().from_bytes(data).get_docs(nl.vocab))[0]
    assert back._.anonymised == expected
    nl.to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    assert loaded("Bel dhr. De Vries op 020-555 5405.")._.anonymised == expected


@pytest.mark.parametrize("lang", ["nl", "de", "fr", "en"])
def test_annotated_sample(lang):
    counts = evaluate_sample(anonymiser_pipeline(lang, use_ner=False), str(SAMPLES / f"{lang}.jsonl"))
    total = {k: sum(c[k] for c in counts.values()) for k in ("tp", "fp", "fn")}
    assert total["tp"] / (total["tp"] + total["fp"]) >= 0.8
    assert total["tp"] / (total["tp"] + total["fn"]) >= 0.6
    for label in ("NUMBER", "SENSITIVE"):
        assert counts[label]["fn"] == 0, label


def test_published_amsterdam_rows_barely_change(shared_data, nl):
    rows = read_amsterdam_csv(str(shared_data("amsterdam-municipal-nl/complex-simple-v1-anonymized.csv")))
    out = anonymise_rows(rows, "nl", nl)
    changed = [(a, b) for a, b in zip(rows, out) if (a.complex, a.simple) != (b.complex, b.simple)]
    assert len(changed) < 0.02 * len(rows)
    for a, b in zip(rows, out):
        for tag in ("[NAME]", "[ORGANIZATION]", "[ADDRESS]", "[NUMBER]"):
            assert b.complex.count(tag) >= a.complex.count(tag)


def test_anonymise_command(tmp_path, capsys):
    source = tmp_path / "in.txt"
    source.write_text("Mr John Smith lives at 221B Baker Street.\nNothing here.\n", encoding="utf-8")
    assert main(["anonymise", str(source), str(tmp_path / "out.txt"), "--lang", "en", "--no-ner"]) == 0
    assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "Mr [NAME] lives at [ADDRESS].\nNothing here.\n"
    rows = tmp_path / "rows.csv"
    rows.write_text('Document ID,Complex,Simple\n1,"Bel 06-12345678.",Bel ons.\n', encoding="utf-8")
    assert main(["anonymise", str(rows), str(tmp_path / "rows-out.csv"), "--lang", "nl"]) == 0
    back = read_amsterdam_csv(str(tmp_path / "rows-out.csv"))
    assert back[0].complex == "Bel [NUMBER]." and back[0].simple == "Bel ons."
    assert main(["anonymise", str(tmp_path / "missing.csv"), str(tmp_path / "x.csv"), "--lang", "nl"]) == 2
    assert "missing.csv" in capsys.readouterr().err


def test_contact_data_and_special_categories():
    """E-mail and web addresses are replaced; a health condition or a party
    membership said of someone blanks the sentence, a party in the news does not."""
    de = anonymiser_pipeline("de", use_ner=False)
    assert de("Schreiben Sie an thomas.mueller@example.de oder Herrn Thomas Müller.")._.anonymised == (
        "Schreiben Sie an [EMAIL] oder Herrn [NAME]."
    )
    assert de("Mehr unter https://www.example.de/kontakt.")._.anonymised == "Mehr unter [URL]."
    assert de("Herr Kaya ist HIV-positiv.")._.anonymised == SENSITIVE_TEXT
    assert de("Frau Brandt ist seit 2010 Mitglied der SPD.")._.anonymised == SENSITIVE_TEXT
    assert de("Die SPD hat die Wahl gewonnen.")._.anonymised == "Die SPD hat die Wahl gewonnen."


def test_category_sample_recall():
    """The written category sample (categories.jsonl): the figures docs/corpus-building.md quotes."""
    from spacy_simalign.corpus.anonymise import category_recall

    pipelines = {lang: anonymiser_pipeline(lang, use_ner=False) for lang in ("de", "nl", "fr", "en")}
    counts = category_recall(str(SAMPLES / "categories.jsonl"), pipelines)
    assert set(counts) == {"email", "url", "phone", "iban", "health", "politics", "none"}
    caught = sum(c for by_lang in counts.values() for c, _ in by_lang.values())
    assert caught >= 103  # of 108 lines, as measured
    assert all(counts[c][lang] == [4, 4] for c in ("email", "url", "phone") for lang in ("de", "nl", "fr", "en"))
