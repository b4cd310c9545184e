"""Cross-lingual path end to end on the German-French articles of tests/data/xling (written
for these tests): documents matched, sentences aligned as the gold says; the post-processing
filters on real data; the language guesser on the shared corpora."""

import csv
import json
from pathlib import Path

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.intersection import intersection_links, make_intersection_aligner
from spacy_simalign.core.errors import InputError
from spacy_simalign.core.structures import Side
from spacy_simalign.corpus.xling_filters import PairFilters, guess_language, is_error_page
from spacy_simalign.formats.pair_jsonl import read_pairs

XLING = Path(__file__).resolve().parent / "data" / "xling"
FILTERS = PairFilters()


def pair_problems(*args):
    return FILTERS.problems(*args)


def _lines(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def _gold_sentence_links():
    """{pair id: {(German sentence, French sentence)}} from the hand-made gold."""
    out = {}
    for record in read_pairs(str(XLING / "pairs.jsonl")):
        de, fr = record.side("complex").sentences, record.side("simple").sentences
        out[record.id] = {(de[b.complex[0]], fr[b.simple[0]]) for b in record.gold}
    return out


@pytest.fixture(scope="module")
def matched(xling_aligned):
    matches, aligned = xling_aligned
    return _lines(matches), _lines(aligned)


def test_german_french_documents_are_matched(matched):
    matches, _ = matched
    gold = {(g["source"], g["target"]) for g in _lines(XLING / "gold_docs.jsonl")}
    assert {(m["source"], m["target"]) for m in matches} == gold  # distractors left unmatched
    assert all(0.0 < m["score"] <= 1.0 for m in matches)


@pytest.mark.parametrize("lexical", ["none", "names-numbers"])
def test_every_lexical_signal_finds_the_german_french_pairs(lexical):
    from spacy_simalign.docmatch.matcher import DocMatcher
    from spacy_simalign.formats.documents import read_documents

    matcher = DocMatcher.from_config(
        overrides={
            f"docmatch.profiles.{p}.{k}": v
            for p in ("same", "cross")
            for k, v in (("lexical", lexical), ("lexical_weight", 0.5))
        }
        | {"docmatch.window_days": 3}
    )
    got = {
        (m.source, m.target)
        for m in matcher.match(read_documents(str(XLING / "de.jsonl")), read_documents(str(XLING / "fr.jsonl")))
    }
    assert got == {(g["source"], g["target"]) for g in _lines(XLING / "gold_docs.jsonl")}


def test_duplicate_ids_through_the_python_api_are_errors():
    from spacy_simalign.core.errors import InputError
    from spacy_simalign.docmatch.matcher import DocMatcher
    from spacy_simalign.formats.documents import read_documents

    docs = read_documents(str(XLING / "de.jsonl"))
    with pytest.raises(InputError, match="duplicate id 'de-hitze'"):
        DocMatcher.from_config().match(docs + docs[:1], read_documents(str(XLING / "fr.jsonl")))


def test_german_french_sentences_are_aligned_as_the_gold(matched):
    _, aligned = matched
    gold = _gold_sentence_links()
    assert {r["id"] for r in aligned} == set(gold)
    for record in aligned:
        got = {
            (record["complex_sentences"][a["complex"][0]], record["simple_sentences"][a["simple"][0]])
            for a in record["alignments"]
        }
        assert got == gold[record["id"]], record["id"]
        assert record["lang"] == "de" and record["lang_simple"] == "fr" and 0 < record["doc_score"] <= 1


def test_pair_jsonl_input_gives_the_same_alignment(tmp_path):
    out = tmp_path / "a.jsonl"
    assert main(["align-xling", str(XLING / "pairs.jsonl"), str(out)]) == 0
    for record, pair in zip(_lines(out), read_pairs(str(XLING / "pairs.jsonl"))):
        assert {(tuple(a["complex"]), tuple(a["simple"])) for a in record["alignments"]} == {
            (b.complex, b.simple) for b in pair.gold
        }


def test_intersection_is_mutual_best_above_threshold():
    import numpy as np

    sim = np.array([[80, 10, 50], [75, 20, 5], [0, 30, 60]], dtype=float)  # row 1: its best (col 0) prefers row 0
    assert intersection_links(sim, 50) == [(0, 0), (2, 2)]
    assert intersection_links(sim, 65) == [(0, 0)]


def test_threshold_trades_recall_for_precision():
    record = next(read_pairs(str(XLING / "pairs.jsonl")))
    loose = make_intersection_aligner(threshold=0).align(record.side("complex"), record.side("simple"))
    strict = make_intersection_aligner(threshold=99).align(record.side("complex"), record.side("simple"))
    assert len(loose) >= len(record.gold) and strict == []


def test_unknown_method_is_an_error(tmp_path, capsys):
    assert (
        main(
            ["align-xling", str(XLING / "pairs.jsonl"), str(tmp_path / "o.jsonl"), "--source", str(XLING / "de.jsonl")]
        )
        == 2
    )
    assert "both --source and --target" in capsys.readouterr().err
    assert (
        main(
            [
                "align-xling",
                str(XLING / "pairs.jsonl"),
                str(tmp_path / "o.jsonl"),
                "--method",
                "crf",
                "--threshold",
                "30",
            ]
        )
        == 2
    )
    assert "--threshold goes with --method intersection" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["align-xling", str(XLING / "pairs.jsonl"), str(tmp_path / "o.jsonl"), "--method", "vecalign"])
    assert not (tmp_path / "o.jsonl").exists()


def test_crf_method_is_selectable():
    from spacy_simalign.aligners.methods import build_aligner, method_config

    record = next(read_pairs(str(XLING / "pairs.jsonl")))

    beads = build_aligner(method_config("crf")).align(record.side("complex"), record.side("simple"))
    links = {link for b in beads for link in b.links()}
    gold = {link for b in record.gold for link in b.links()}
    assert len(links & gold) >= len(gold) - 1


# -- post-processing filters, on real data -----------------------------------------------------


def test_language_guesser_on_the_shared_corpora(deplain_pairs, shared_data):
    de = " ".join(deplain_pairs[0]["complex"]["paragraphs"][0])
    with open(shared_data("amsterdam-municipal-nl/complex-simple-v1-anonymized.csv"), encoding="utf-8") as handle:
        nl = " ".join(row["Complex"] for _, row in zip(range(5), csv.DictReader(handle)))
    fr = " ".join(" ".join(p) for p in read_pairs(str(XLING / "pairs.jsonl")).__next__().side_input("simple"))
    settings = (FILTERS.min_stopwords, FILTERS.language_margin)
    assert (guess_language(de, *settings), guess_language(nl, *settings), guess_language(fr, *settings)) == (
        "de",
        "nl",
        "fr",
    )
    assert guess_language("Zürich 2024", *settings) is None


def test_filters_drop_pairs_that_are_not_cross_lingual(deplain_pairs, tmp_path):
    real = next(read_pairs(str(XLING / "pairs.jsonl")))
    de = "\n\n".join(" ".join(p) for p in real.side_input("complex"))
    fr = "\n\n".join(" ".join(p) for p in real.side_input("simple"))
    assert pair_problems(de, fr, "de", "fr") == []
    complex_de = " ".join(s for p in deplain_pairs[0]["complex"]["paragraphs"] for s in p)
    simple_de = deplain_pairs[0]["simple"].get("text") or " ".join(
        s for p in deplain_pairs[0]["simple"]["paragraphs"] for s in p
    )
    assert "same-language" in pair_problems(complex_de, simple_de, "de", "fr")  # declared fr, reads German
    assert "wrong-language" in pair_problems(complex_de, simple_de, "de", "fr")
    assert "near-identical" in pair_problems(de, de.replace("34 Grad", "35 Grad"), "de", "fr")
    error = "Erreur 404 - Page introuvable. La page que vous cherchez n'existe pas ou a été déplacée."
    assert is_error_page(error, FILTERS.error_page_chars) and not is_error_page(fr, FILTERS.error_page_chars)
    assert "error-page" in pair_problems(de, error, "de", "fr")
    # through the command: the bad pair is dropped and reported, the real one kept
    pairs = tmp_path / "p.jsonl"
    rows = [json.loads(line) for line in (XLING / "pairs.jsonl").read_text(encoding="utf-8").splitlines()[:1]]
    rows.append({"id": "error", "lang": "de", "lang_simple": "fr", "complex": {"text": de}, "simple": {"text": error}})
    pairs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out, dropped = tmp_path / "o.jsonl", tmp_path / "d.jsonl"
    assert main(["align-xling", str(pairs), str(out), "--dropped", str(dropped)]) == 0
    assert [r["id"] for r in _lines(out)] == [rows[0]["id"]]
    assert _lines(dropped) == [{"id": "error", "reasons": ["error-page"], "lang": "de", "lang_simple": "fr"}]
    assert main(["align-xling", str(pairs), str(out), "--no-filter"]) == 0
    assert len(_lines(out)) == 2


def test_filter_settings_reach_the_filters_through_align_xling(tmp_path):
    """The filters' constants are settings (one default each, in PairFilters) that
    `align-xling --filter NAME=VALUE` changes."""
    real = next(read_pairs(str(XLING / "pairs.jsonl")))
    de = "\n\n".join(" ".join(p) for p in real.side_input("complex"))
    close = de.replace("34 Grad", "35 Grad")
    assert "near-identical" in pair_problems(de, close, "de", "fr")
    strict = PairFilters().with_settings(["near_identical_ratio=100"])
    assert strict.near_identical_ratio == 100.0 and "near-identical" not in strict.problems(de, close, "de", "fr")
    assert PairFilters().with_settings(["error-page-chars=10"]).error_page_chars == 10
    with pytest.raises(InputError, match="min_stopwords"):
        PairFilters().with_settings(["stopwords=2"])
    error = "Erreur 404 - Page introuvable. La page que vous cherchez n'existe pas ou a été déplacée."
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        json.dumps(
            {"id": "error", "lang": "de", "lang_simple": "fr", "complex": {"text": de}, "simple": {"text": error}},
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    out, dropped = tmp_path / "o.jsonl", tmp_path / "d.jsonl"
    assert main(["align-xling", str(pairs), str(out), "--dropped", str(dropped)]) == 0
    assert _lines(dropped)[0]["reasons"] == ["error-page"]
    assert (
        main(["align-xling", str(pairs), str(out), "--dropped", str(dropped), "--filter", "error_page_chars=20"]) == 0
    )
    assert _lines(dropped) == [] and len(_lines(out)) == 1
    assert main(["align-xling", str(pairs), str(out), "--filter", "nope=1"]) == 2


def test_match_referring_to_an_unknown_document_is_located(tmp_path, capsys):
    matches = tmp_path / "m.jsonl"
    matches.write_text('{"source": "de-hitze", "target": "fr-canicule"}\n{"source": "de-nope", "target": "fr-greve"}\n')
    out = tmp_path / "o.jsonl"
    assert (
        main(
            [
                "align-xling",
                str(matches),
                str(out),
                "--source",
                str(XLING / "de.jsonl"),
                "--target",
                str(XLING / "fr.jsonl"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert f"{matches}:2:" in err and "de-nope" in err and not out.exists()


def test_empty_side_gives_no_beads():
    aligner = make_intersection_aligner()
    assert aligner.align(Side([], [], "de"), Side(["Un mot."], [[0]], "fr")) == []
