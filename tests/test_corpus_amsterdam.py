"""The Amsterdam post-processing rules: crafted cases, the published Amsterdam rows, and
the whole path on DEplain-web documents."""

import json
from collections import Counter

import Levenshtein
import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.structures import Side
from spacy_simalign.corpus.amsterdam import (
    RULE_NAMES,
    add_split_merges,
    build_corpus,
    drop_duplicates,
    drop_trivial_edits,
    is_trivial_edit,
    keep_closest,
    normalise,
    postprocess,
)
from spacy_simalign.corpus.amsterdam_candidates import CandidateSettings, candidate_pairs
from spacy_simalign.corpus.sentence_pairs import SentencePair, read_amsterdam_csv
from spacy_simalign.formats.pair_jsonl import parse_pair


def row(complex_text, simple_text, doc="d1", simple_ids=(), score=None):
    return SentencePair(doc, complex_text, simple_text, score, (0,) if simple_ids else (), tuple(simple_ids))


@pytest.fixture(scope="module")
def amsterdam_rows(shared_data):
    return read_amsterdam_csv(str(shared_data("amsterdam-municipal-nl/complex-simple-v1-anonymized.csv")))


@pytest.fixture(scope="module")
def deplain_records(deplain_pairs):
    return [parse_pair(p) for p in deplain_pairs]


# --- rule 1: trivial edits


def test_trivial_edit_case_and_punctuation():
    assert is_trivial_edit("Bel ons, nu!", "bel ons nu")
    assert is_trivial_edit("Het  is klaar.", "Het is klaar")
    assert not is_trivial_edit("Het is klaar.", "Het is nu klaar.")
    assert not is_trivial_edit("Het Verzuim protocol.", "Het Verzuimprotocol.")  # a space is a word change


def test_trivial_edit_modes():
    both = ("En als het doorgaat, MOET iedereen meedoen?", "En als het doorgaat: moet iedereen meedoen?")
    assert is_trivial_edit(*both, mode="combined")
    assert not is_trivial_edit(*both, mode="either")
    assert is_trivial_edit("Intranet en UWV.", "intranet en UWV.", mode="case")
    assert not is_trivial_edit("Intranet, en UWV.", "intranet en UWV.", mode="case")
    assert normalise("A, B!", "punctuation") == "A B"
    with pytest.raises(ValueError):
        normalise("x", "nonsense")


def test_drop_trivial_edits_keeps_real_changes():
    rows = [
        row("Zet het raam open.", "zet het raam open"),
        row("Zet (30 minuten) een raam open.", "Zet 30 minuten een raam open."),
    ]
    rows.append(row("U ontvangt een brief.", "U krijgt een brief."))
    assert [r.simple for r in drop_trivial_edits(rows)] == ["U krijgt een brief."]


def test_trivial_rule_on_published_rows(amsterdam_rows):
    kept = drop_trivial_edits(amsterdam_rows)
    dropped = [r for r in amsterdam_rows if r not in kept]
    assert all(normalise(r.complex) == normalise(r.simple) for r in dropped)
    assert all(normalise(r.complex) != normalise(r.simple) for r in kept)
    # the published corpus still holds some pairs that differ only in case/punctuation
    assert 0 < len(dropped) < 0.1 * len(amsterdam_rows)


# --- rule 2: duplicates


def test_drop_duplicates_keeps_first_and_best_score():
    rows = [row("a b", "a", score=0.2), row("a b", "b"), row("a b", "a", score=0.9), row("a b", "a", doc="d2")]
    out = drop_duplicates(rows)
    assert [(r.doc_id, r.simple) for r in out] == [("d1", "a"), ("d1", "b"), ("d2", "a")]
    assert out[0].score == 0.9


def test_duplicates_rule_on_published_rows(amsterdam_rows):
    out = drop_duplicates(amsterdam_rows)
    keys = Counter((r.doc_id, r.complex, r.simple) for r in amsterdam_rows)
    assert len(out) == len(keys)
    assert len({(r.doc_id, r.complex, r.simple) for r in out}) == len(out)


# --- rule 3: split merges


def test_split_merge_joins_simple_versions_in_document_order():
    rows = [
        row("Ik kom morgen en ik breng taart mee.", "Ik breng taart mee.", simple_ids=(5,)),
        row("Ik kom morgen en ik breng taart mee.", "Ik kom morgen.", simple_ids=(4,)),
        row("Alleen dit.", "Alleen dat.", simple_ids=(6,)),
    ]
    out = add_split_merges(rows)
    assert out[:3] == rows
    merged = [r for r in out if r.origin == "split-merge"]
    assert len(merged) == 1
    assert merged[0].simple == "Ik kom morgen. Ik breng taart mee."
    assert merged[0].simple_ids == (4, 5)


def test_split_merge_ignores_repeated_versions():
    rows = [row("a b c", "a"), row("a b c", "a")]
    assert add_split_merges(rows) == rows


def test_split_then_closest_prefers_merge_for_a_real_split():
    complex_text = "Daarnaast willen bewoners buslijn 21 terug, of een betere verbinding met de bushalte."
    rows = [
        row(complex_text, "Daarnaast willen bewoners buslijn 21 terug.", simple_ids=(1,)),
        row(complex_text, "Of een betere verbinding met de bushalte.", simple_ids=(2,)),
    ]
    out = keep_closest(add_split_merges(rows))
    assert len(out) == 1 and out[0].origin == "split-merge"


# --- rule 4: closest


def test_keep_closest_uses_levenshtein_and_keeps_order():
    rows = [
        row("De brief komt morgen.", "Morgen komt de brief."),
        row("Iets anders.", "Iets anders!"),
        row("De brief komt morgen.", "De brief komt snel."),
    ]
    out = keep_closest(rows)
    assert [r.simple for r in out] == ["Iets anders!", "De brief komt snel."]


def test_closest_rule_on_published_rows(amsterdam_rows):
    rows = add_split_merges(drop_duplicates(amsterdam_rows))
    out = keep_closest(rows)
    groups = {}
    for r in rows:
        groups.setdefault((r.doc_id, r.complex), []).append(r)
    assert len(out) == len(groups)
    for r in out:  # checked with another Levenshtein implementation
        best = min(Levenshtein.distance(x.complex, x.simple) for x in groups[(r.doc_id, r.complex)])
        assert Levenshtein.distance(r.complex, r.simple) == best


# --- the chain


def test_postprocess_counts_chain_and_switches(amsterdam_rows):
    out, counts = postprocess(amsterdam_rows)
    assert [c.rule for c in counts] == list(RULE_NAMES)
    assert counts[0].before == len(amsterdam_rows) and counts[-1].after == len(out)
    for a, b in zip(counts, counts[1:]):
        assert a.after == b.before
    skipped, skip_counts = postprocess(amsterdam_rows, skip=["trivial"])
    assert not skip_counts[0].enabled and skip_counts[0].change == 0
    assert len(skipped) > len(out)
    with pytest.raises(ValueError, match="unknown rule"):
        postprocess(amsterdam_rows, skip=["nope"])


def test_candidates_stay_inside_aligned_paragraphs():
    complex_side = Side.from_paragraphs(
        [["Der Hund bellt laut im Garten.", "Die Katze schläft."], ["Das Auto ist rot und schnell."]]
    )
    simple_side = Side.from_paragraphs([["Das Auto ist rot."], ["Der Hund bellt.", "Die Katze schläft im Haus."]])
    rows, links = candidate_pairs("x", complex_side, simple_side, settings=CandidateSettings(0.1, 0.2))
    pairs = {(r.complex_ids[0], r.simple_ids[0]) for r in rows}
    assert pairs == {(2, 0), (0, 1), (1, 2)}
    assert links >= 2
    assert len(rows) > len(pairs)  # both directions: duplicates are left for the duplicates rule


def test_build_corpus_on_deplain(deplain_records):
    rows, report = build_corpus(deplain_records)
    assert report.documents == len(deplain_records) and report.candidates >= len(rows) > 0
    sentences = {
        r.id: set(sum(r.side_input("complex"), [])) | set(sum(r.side_input("simple"), [])) for r in deplain_records
    }
    gold = {r.id: {link for b in r.gold for link in b.links()} for r in deplain_records}
    confirmed = 0
    for r in rows:
        assert r.complex in sentences[r.doc_id]
        assert r.origin == "split-merge" or r.simple in sentences[r.doc_id]
        # a merged split may differ only in punctuation ("..., viele" -> "... . Viele"): a real split
        assert r.origin == "split-merge" or not is_trivial_edit(r.complex, r.simple)
        confirmed += all((c, s) in gold[r.doc_id] for c in r.complex_ids for s in r.simple_ids)
    assert confirmed / len(rows) > 0.8
    assert len({(r.doc_id, r.complex) for r in rows}) == len(rows)


def test_build_corpus_from_an_aligners_beads(deplain_records):
    gold = {r.id: r.gold for r in deplain_records}
    rows, report = build_corpus(deplain_records, alignments=gold)
    links = {r.id: {link for b in r.gold for link in b.links()} for r in deplain_records}
    assert rows and all((c, s) in links[r.doc_id] for r in rows for c in r.complex_ids for s in r.simple_ids)
    assert report.paragraph_pairs == 0


def test_amsterdam_command(tmp_path, deplain_pairs, capsys):
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:5]), encoding="utf-8")
    out = tmp_path / "corpus"
    assert main(["amsterdam", str(source), str(out), "--formats", "jsonl,csv,moses", "--skip", "splits"]) == 0
    printed = capsys.readouterr().out
    assert "splits" in printed and "closest" in printed
    kept = read_amsterdam_csv(str(out / "pairs.csv"))
    lines = (out / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(kept) == len(lines) > 0
    assert (out / "pairs.complex").read_text(encoding="utf-8").count("\n") == len(lines)
    assert not any(json.loads(line)["origin"] == "split-merge" for line in lines)
    assert "license:" in (out / "README.md").read_text(encoding="utf-8")


def test_amsterdam_command_bad_input(tmp_path, capsys):
    source = tmp_path / "bad.jsonl"
    source.write_text('{"id": "a", "lang": "de"}\n', encoding="utf-8")
    out = tmp_path / "corpus"
    assert main(["amsterdam", str(source), str(out)]) == 2
    assert "bad.jsonl:1:" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("index", [-1, 10_000])
def test_amsterdam_command_refuses_alignment_indices_out_of_range(tmp_path, deplain_records, index):
    from spacy_simalign.__main__ import main
    from spacy_simalign.formats.jsonl import dump_line

    record = deplain_records[0]
    pairs, alignments = tmp_path / "pairs.jsonl", tmp_path / "aligned.jsonl"
    pairs.write_text(dump_line(record.raw), encoding="utf-8")
    alignments.write_text(
        dump_line({"id": record.id, "alignments": [{"complex": [index], "simple": [0]}]}), encoding="utf-8"
    )
    out = tmp_path / "corpus"
    assert main(["amsterdam", str(pairs), str(out), "--alignments", str(alignments)]) == 2
    assert not out.exists()


def test_amsterdam_keeps_an_earlier_corpus_unless_told_to_replace_it(tmp_path, deplain_pairs, capsys):
    """As `export`: a folder that holds an earlier corpus is refused in one line with nothing
    changed, and `--overwrite` replaces that corpus's files (a file of the user's beside it stays)."""
    source = tmp_path / "pairs.jsonl"
    source.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:3]), encoding="utf-8")
    out = tmp_path / "corpus"
    assert main(["amsterdam", str(source), str(out)]) == 0
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    assert main(["amsterdam", str(source), str(out), "--formats", "csv"]) == 2
    err = capsys.readouterr().err
    assert "--overwrite" in err and len(err.strip().splitlines()) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert main(["amsterdam", str(source), str(out), "--formats", "csv", "--overwrite"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "notes.txt", "pairs.csv"]
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
