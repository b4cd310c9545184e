"""The Klexikon pipeline: parsing, each clean-up rule on crafted and real lines, the
paragraph filter, lead-3 with ROUGE, and the stratified split; then the whole run."""

import json
import statistics

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.corpus.klexikon import (
    COORDINATES,
    KlexikonSettings,
    merge_semicolon_splits,
    merge_short_lead_lines,
    merge_unterminated_lead,
    parse_article,
    read_article_pairs,
    remove_coordinates,
    rouge_f1,
    run_pipeline,
    stratified_split,
)

ARTICLE = """Die Aare ist ein Fluss.
Karte
Sie fließt durch die Schweiz.

Ihre Länge beträgt 288 km;
sie mündet in den Rhein.
-12.3517.35Koordinaten: 12° S, 17° O

== Verlauf

Die Aare entspringt in den Alpen, etwa
bei der Grimsel.
Organe sind Vorstand und Rat;

=== Orte

Bern liegt an der Aare.
"""


@pytest.fixture(scope="module")
def klexikon_folder(shared_data):
    return str(shared_data("klexikon-validation"))


def test_parse_article_paragraphs_headings_lead():
    art = parse_article(ARTICLE, "Aare")
    assert art.paragraphs[0] == ["Die Aare ist ein Fluss.", "Karte", "Sie fließt durch die Schweiz."]
    assert len(art.paragraphs) == 4 and art.lead_size == 2
    assert art.sections == [None, None, "Verlauf", "Orte"]
    assert not any(s.startswith("=") for s in art.sentences)


def test_lead_without_headings_is_first_paragraph():
    assert parse_article("Satz eins.\n\nSatz zwei.\n").lead_size == 1
    assert parse_article("").paragraphs == []


def test_semicolon_merge_not_across_headings():
    art, n = merge_semicolon_splits(parse_article(ARTICLE))
    assert n == 1
    assert "Ihre Länge beträgt 288 km; sie mündet in den Rhein." in art.sentences
    assert "Organe sind Vorstand und Rat;" in art.sentences  # a heading follows: left alone


def test_semicolon_merge_across_blank_line():
    art, n = merge_semicolon_splits(parse_article("== A\n\nEins;\n\nzwei.\n"))
    assert n == 1 and art.paragraphs == [["Eins; zwei."]] and art.sections == ["A"]


def test_short_lead_lines_merge_with_next():
    art, n = merge_short_lead_lines(parse_article(ARTICLE))
    assert n == 1
    assert art.paragraphs[0] == ["Die Aare ist ein Fluss.", "Karte Sie fließt durch die Schweiz."]
    art, n = merge_short_lead_lines(parse_article("Kurz\n\nEin langer Satz hier.\n\n== X\n\nA b\n"))
    assert n == 1 and art.paragraphs[0] == ["Kurz Ein langer Satz hier."] and art.lead_size == 1
    assert art.paragraphs[-1] == ["A b"]  # outside the lead


def test_coordinates_removed_line_dropped():
    art, n = remove_coordinates(parse_article(ARTICLE))
    assert n == 1
    assert not any("Koordinaten" in s for s in art.sentences)
    assert art.paragraphs[1] == ["Ihre Länge beträgt 288 km;", "sie mündet in den Rhein."]


def test_coordinates_regex_on_real_lines(klexikon_folder):
    pairs, _ = read_article_pairs(klexikon_folder)
    lines = [s for w, k in pairs for s in w.sentences + k.sentences]
    with_degrees = [s for s in lines if "Koordinaten:" in s and "°" in s]
    assert with_degrees
    for line in with_degrees:
        left = COORDINATES.sub("", line)
        assert "°" not in left and "Koordinaten" not in left
    untouched = [s for s in lines if "Koordinaten" in s and "°" not in s]
    assert untouched and all(COORDINATES.sub("", s) == s for s in untouched)


def test_unterminated_lead_sentences_merge():
    art, n = merge_unterminated_lead(parse_article(ARTICLE))
    assert n == 2  # 'Karte' and the '...km;' line join the next; the coordinates line ends its paragraph
    assert "Karte Sie fließt durch die Schweiz." in art.sentences
    assert "Ihre Länge beträgt 288 km; sie mündet in den Rhein." in art.sentences
    assert "Die Aare entspringt in den Alpen, etwa" in art.sentences  # not in the lead
    art, n = merge_unterminated_lead(parse_article("Er sagte: „Ja.“\nDann ging er.\n"))
    assert n == 0


def test_rouge():
    assert rouge_f1("Der Hund bellt.", "der hund bellt")["rouge1"] == pytest.approx(1.0)
    assert rouge_f1("Der Hund bellt.", "Die Katze schläft.") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}
    scores = rouge_f1("a b c d", "a c b d")
    assert scores["rouge2"] < scores["rougeL"] < scores["rouge1"] == 1.0


def test_stratified_split_is_complete_deterministic_and_stratified():
    items = list(range(103))
    lengths = [(i * 37) % 101 for i in items]
    a = stratified_split(items, lengths, seed=1)
    assert a == stratified_split(items, lengths, seed=1)
    assert a != stratified_split(items, lengths, seed=2)
    assert sorted(sum(a.values(), [])) == items
    assert (len(a["train"]), len(a["validation"]), len(a["test"])) == (83, 10, 10)
    med = {k: statistics.median(lengths[i] for i in v) for k, v in a.items()}
    assert max(med.values()) - min(med.values()) < 20
    with pytest.raises(ValueError):
        stratified_split(items, lengths, proportions=(0.5, 0.5, 0.5))


def test_pipeline_on_klexikon_validation(klexikon_folder):
    splits, lead3, report = run_pipeline(klexikon_folder, KlexikonSettings(seed=7))
    kept = [r for records in splits.values() for r in records]
    assert report.pairs_read == len(kept) + len(report.discarded_short)
    assert report.discarded_short and all(len(r["complex"]["paragraphs"]) >= 15 for r in kept)
    sizes = report.split_sizes
    assert abs(sizes["train"] - 0.8 * len(kept)) <= 3 and abs(sizes["test"] - 0.1 * len(kept)) <= 2
    ids = [r["id"] for r in kept]
    assert len(set(ids)) == len(ids)
    by_rule = {(rule, side): (on, before, after) for rule, side, on, before, after, _ in report.rule_rows}
    assert by_rule[("coordinates", "wiki")][2] < by_rule[("coordinates", "wiki")][1]
    for record in kept:
        assert not any("Koordinaten:" in s and "°" in s for p in record["complex"]["paragraphs"] for s in p)
    first = {r["id"]: r for r in kept}
    for row in lead3:
        assert row["lead3"].startswith(first[row["id"]]["complex"]["paragraphs"][0][0])
        assert 0 <= row["rouge1"] <= 1


def test_pipeline_switches(klexikon_folder):
    _, _, off = run_pipeline(klexikon_folder, KlexikonSettings(skip=["coordinates"], min_wiki_paragraphs=0))
    rows = {(rule, side): (on, changed) for rule, side, on, _, _, changed in off.rule_rows}
    assert rows[("coordinates", "wiki")] == (False, 0)
    assert not off.discarded_short


def test_klexikon_command(tmp_path, klexikon_folder, capsys):
    out = tmp_path / "klx"
    assert main(["klexikon", klexikon_folder, str(out), "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "split sizes" in printed and "ROUGE-1" in printed
    from spacy_simalign.formats.pair_jsonl import read_pairs

    n = sum(1 for name in ("train", "validation", "test") for _ in read_pairs(str(out / f"{name}.jsonl")))
    lead = [json.loads(line) for line in (out / "lead3.jsonl").read_text(encoding="utf-8").splitlines()]
    assert n == len(lead) > 0


def test_klexikon_command_missing_folder(tmp_path, capsys):
    assert main(["klexikon", str(tmp_path), str(tmp_path / "out")]) == 2
    assert "missing folder 'wiki/'" in capsys.readouterr().err


def test_titles_pair_once_composed_and_a_title_twice_is_refused(tmp_path, capsys):
    """A title written decomposed (NFD, as macOS writes file names) pairs with the same title written
    composed on the other side, and the article's title is the composed one; two files of one title
    on a side (composed and decomposed) are refused naming both."""
    import unicodedata

    composed = "Zürich"
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    for side, name in (("wiki", composed), ("klexikon", decomposed)):
        (tmp_path / side).mkdir()
        (tmp_path / side / f"{name}.txt").write_text(ARTICLE, encoding="utf-8")
    pairs, orphans = read_article_pairs(str(tmp_path))
    assert orphans == [] and [(w.title, k.title) for w, k in pairs] == [(composed, composed)]
    (tmp_path / "wiki" / f"{decomposed}.txt").write_text(ARTICLE, encoding="utf-8")
    assert main(["klexikon", str(tmp_path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "two files with stems equal once composed (Unicode NFC)" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_klexikon_keeps_its_files_in_the_output_folder_unless_overwrite(tmp_path, capsys):
    """As `export`: an output folder that holds a file klexikon writes (the user's own train.jsonl,
    counts.txt) is refused in one line before any work, with every file left as it was; --overwrite
    replaces klexikon's files only (a note of the user's and an export's data card beside them stay)."""
    articles = tmp_path / "articles"
    for side in ("wiki", "klexikon"):
        (articles / side).mkdir(parents=True)
        for title in ("Aare", "Bern", "Thun"):
            (articles / side / f"{title}.txt").write_text(ARTICLE, encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("train.jsonl", "counts.txt", "notes.txt", "pairs.jsonl"):
        (out / name).write_text("mine\n", encoding="utf-8")
    (out / "README.md").write_text("exported by spacy-simalign\n\n## Files\n\n- `pairs.jsonl`\n", encoding="utf-8")

    def files():
        return {p.relative_to(tmp_path): p.read_bytes() for p in sorted(tmp_path.rglob("*")) if p.is_file()}

    before = files()
    argv = ["klexikon", str(articles), str(out), "--min-paragraphs", "1"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: {out}: output folder holds files this command writes (train.jsonl, counts.txt): give --overwrite "
        "to replace them"
    )
    assert files() == before
    assert main(argv + ["--overwrite"]) == 0, capsys.readouterr().err
    written = {"train.jsonl", "validation.jsonl", "test.jsonl", "lead3.jsonl", "counts.txt"}
    assert {p.name for p in out.iterdir()} == written | {"notes.txt", "pairs.jsonl", "README.md"}
    kept = files()
    assert all(kept[p] == data for p, data in before.items() if p.name not in written)
    assert kept[out.relative_to(tmp_path) / "counts.txt"] != b"mine\n" and "split sizes" in capsys.readouterr().out
