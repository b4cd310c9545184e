"""Export of sentence-pair corpora: JSONL/CSV/TSV round trips on real rows, the Hugging
Face datasets folder, the data card, alignment files from any aligner, bad input."""

import csv
import json
from pathlib import Path

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.errors import InputError
from spacy_simalign.corpus.export import (
    CardInfo,
    datasets_available,
    export_corpus,
    read_rows,
    rows_from_alignment_file,
)
from spacy_simalign.corpus.sentence_pairs import SentencePair, read_amsterdam_csv
from spacy_simalign.engines.job import sentences_digest


@pytest.fixture(scope="module")
def amsterdam_rows(shared_data):
    return read_amsterdam_csv(str(shared_data("amsterdam-municipal-nl/complex-simple-v1-anonymized.csv")))


def texts(rows):
    return [(r.doc_id, r.complex, r.simple) for r in rows]


def test_round_trips_on_published_rows(tmp_path, amsterdam_rows):
    written = export_corpus(
        amsterdam_rows,
        str(tmp_path),
        ["jsonl", "csv", "tsv"],
        CardInfo("amsterdam", "EUPL-1.2", ["nl"], "TF-IDF, then post-processing"),
    )
    assert [p.rsplit("/", 1)[-1] for p in written] == ["pairs.jsonl", "pairs.csv", "pairs.tsv", "README.md"]
    assert texts(read_amsterdam_csv(str(tmp_path / "pairs.csv"))) == texts(amsterdam_rows)
    assert texts(read_rows(str(tmp_path / "pairs.jsonl"))) == texts(amsterdam_rows)
    with open(tmp_path / "pairs.tsv", encoding="utf-8", newline="") as handle:
        tsv = list(csv.DictReader(handle, delimiter="\t"))
    assert [(r["Document ID"], r["Complex"], r["Simple"]) for r in tsv] == texts(amsterdam_rows)


def test_data_card_counts(tmp_path, amsterdam_rows):
    export_corpus(amsterdam_rows, str(tmp_path), ["jsonl"], CardInfo("amsterdam", "EUPL-1.2", ["nl"], "TF-IDF"))
    card = (tmp_path / "README.md").read_text(encoding="utf-8")
    assert card.startswith("---\nlicense: EUPL-1.2\n")
    assert f"- sentence pairs: {len(amsterdam_rows)}" in card
    assert f"- documents: {len({r.doc_id for r in amsterdam_rows})}" in card
    assert "TF-IDF" in card and "- nl" in card


@pytest.mark.skipif(not datasets_available(), reason="the optional datasets extra is not installed")
def test_hugging_face_folder(tmp_path, amsterdam_rows):
    import datasets

    export_corpus(amsterdam_rows[:50], str(tmp_path), ["hf"])
    loaded = datasets.load_from_disk(str(tmp_path / "hf_dataset"))
    assert loaded.num_rows == 50
    assert loaded[3]["complex"] == amsterdam_rows[3].complex and loaded[3]["doc_id"] == amsterdam_rows[3].doc_id


def test_unknown_format_writes_nothing(tmp_path, amsterdam_rows):
    with pytest.raises(InputError, match="unknown export format"):
        export_corpus(amsterdam_rows, str(tmp_path / "out"), ["jsonl", "xml"])
    assert not (tmp_path / "out").exists()


def write_gold_alignments(tmp_path, deplain_pairs, n=4):
    pairs = tmp_path / "pairs.jsonl"
    align = tmp_path / "align.jsonl"
    pairs.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:n]), encoding="utf-8")
    align.write_text(
        "".join(
            json.dumps({"id": p["id"], "alignments": [{"complex": c, "simple": s, "score": 1.0} for c, s in p["gold"]]})
            + "\n"
            for p in deplain_pairs[:n]
        ),
        encoding="utf-8",
    )
    return pairs, align


def test_rows_from_any_aligner_output(tmp_path, deplain_pairs):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs)
    rows = rows_from_alignment_file(str(pairs), str(align))
    expected = sum(1 for p in deplain_pairs[:4] for c, s in p["gold"] if c and s)
    assert len(rows) == expected
    first = deplain_pairs[0]
    sents = [s for para in first["complex"]["paragraphs"] for s in para]
    c, s = next((c, s) for c, s in first["gold"] if c and s)
    assert rows[0].complex == " ".join(sents[i] for i in c)
    split = rows_from_alignment_file(str(pairs), str(align), split_simple=True)
    assert len(split) == sum(len(s) for p in deplain_pairs[:4] for c, s in p["gold"] if c)


def test_alignment_file_errors(tmp_path, deplain_pairs):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs, n=1)
    bad = {"id": deplain_pairs[0]["id"], "alignments": [{"complex": [9999], "simple": [0]}]}
    align.write_text(json.dumps(bad) + "\n")
    with pytest.raises(InputError, match="align.jsonl:1: .*out of range"):
        rows_from_alignment_file(str(pairs), str(align))
    align.write_text(json.dumps({"id": "nope", "alignments": []}) + "\n")
    with pytest.raises(InputError, match="unknown pair id"):
        rows_from_alignment_file(str(pairs), str(align))


def test_export_command(tmp_path, deplain_pairs, capsys):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs)
    out = tmp_path / "published"
    assert (
        main(
            [
                "export",
                str(out),
                "--pairs",
                str(pairs),
                "--alignments",
                str(align),
                "--formats",
                "jsonl,tsv",
                "--license",
                "CC BY 4.0",
                "--aligned-with",
                "manual (DEplain gold)",
            ]
        )
        == 0
    )
    assert (out / "pairs.jsonl").exists() and (out / "pairs.tsv").exists() and not (out / "pairs.csv").exists()
    assert "manual (DEplain gold)" in (out / "README.md").read_text(encoding="utf-8")
    assert main(["export", str(tmp_path / "x")]) == 2
    assert "--rows" in capsys.readouterr().err


def test_raw_text_pairs_are_segmented_as_the_aligner_segments_them(tmp_path):
    """Alignment files without their sentences index the aligner's own segmentation (our rules:
    "usw." ends a sentence, "Kap. 4" does not); export must read the same sentences back."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps(
            {
                "id": "raw-1",
                "lang": "de",
                "complex": {"text": "Es gibt Äpfel, Birnen usw. Das ist gut. Siehe Kap. 4 im Anhang."},
                "simple": {"text": "Es gibt Äpfel und Birnen. Das ist gut. Lesen Sie Kapitel 4."},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    aligned = tmp_path / "aligned.jsonl"
    assert main(["align", str(pairs), str(aligned), "--method", "tfidf"]) == 0
    record = json.loads(aligned.read_text(encoding="utf-8"))
    expected = [
        (
            " ".join(record["complex_sentences"][i] for i in b["complex"]),
            " ".join(record["simple_sentences"][j] for j in b["simple"]),
        )
        for b in record["alignments"]
        if b["complex"] and b["simple"]
    ]
    assert len(record["complex_sentences"]) == 3 and expected
    bare = tmp_path / "bare.jsonl"
    bare.write_text(json.dumps({"id": record["id"], "alignments": record["alignments"]}) + "\n", encoding="utf-8")
    rows = rows_from_alignment_file(str(pairs), str(bare))
    assert [(r.complex, r.simple) for r in rows] == expected


def test_formula_cells_tsv_texts_and_card_language(tmp_path, deplain_pairs):
    """A cell that starts like a formula gets a leading ' in CSV and TSV (OWASP);
    TSV gives back the texts of JSONL and CSV (quotes, tabs, newlines); the card's language is the data's."""
    rows = [
        SentencePair("d1", '=HYPERLINK("http://x.example","klick")', "+1 ist mehr"),
        SentencePair("d1", "-Minus und @Leute", 'Er sagt: "Hallo"\tund\nTschüss.'),
    ]
    export_corpus(rows, str(tmp_path), ["jsonl", "csv", "tsv"], CardInfo())
    safe = [("d1", "'" + r.complex, r.simple if not r.simple.startswith("+") else "'" + r.simple) for r in rows]
    assert texts(read_amsterdam_csv(str(tmp_path / "pairs.csv"))) == safe
    with open(tmp_path / "pairs.tsv", encoding="utf-8", newline="") as handle:
        tsv = list(csv.DictReader(handle, delimiter="\t"))
    assert [(r["Document ID"], r["Complex"], r["Simple"]) for r in tsv] == safe
    assert texts(read_rows(str(tmp_path / "pairs.jsonl"))) == texts(rows)  # JSONL keeps the text as it is

    pair = dict(deplain_pairs[0], lang="en")
    pairs, align = write_gold_alignments(tmp_path, [pair])
    assert main(["export", str(tmp_path / "en"), "--pairs", str(pairs), "--alignments", str(align)]) == 0
    assert "language:\n- en\n" in (tmp_path / "en" / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("score", "high", "'score' must be a number, got 'high'"),
        ("score", True, "'score' must be a number, got True"),
        ("complex_ids", 3, "'complex_ids' must be a list of sentence indices (integers from 0), got 3"),
        ("simple_ids", [0, -1], "'simple_ids' must be a list of sentence indices (integers from 0), got [0, -1]"),
    ],
)
def test_bad_fields_of_a_rows_file_are_one_line_and_nothing_written(
    tmp_path, deplain_pairs, capsys, field, value, message
):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs, n=1)
    rows = [row.to_json() for row in rows_from_alignment_file(str(pairs), str(align))]
    assert len(rows) > 1 and "score" in rows[1] and "complex_ids" in rows[1]
    rows[1][field] = value
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "published"
    assert main(["export", str(out), "--rows", str(path), "--lang", "de"]) == 2
    assert capsys.readouterr().err == f"error: {path}:2: {message}\n"
    assert not out.exists()
    rows[1].pop(field)  # the same file without the bad field exports
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["export", str(out), "--rows", str(path), "--lang", "de"]) == 0
    assert len(read_rows(str(out / "pairs.jsonl"))) == len(rows)


def export_args(out, pairs, align, *extra):
    return ["export", str(out), "--pairs", str(pairs), "--alignments", str(align), *extra]


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err, err
    return err.strip()


@pytest.mark.parametrize("formats", ["moses", "jsonl", "tmx,bitext,csv"])
def test_a_lone_surrogate_is_one_line_and_nothing_is_written(tmp_path, deplain_pairs, capsys, formats):
    """A JSON escape can put a lone surrogate in a pair's text, which no UTF-8 file can hold: export
    refuses it as align does, before it writes any format."""
    pair = json.loads(json.dumps(deplain_pairs[0]))
    pair["simple"]["paragraphs"][0][0] += "\ud800"
    pairs, align = write_gold_alignments(tmp_path, [deplain_pairs[0]])
    pairs.write_text(json.dumps(pair) + "\n", encoding="ascii")  # the surrogate as the JSON escape \ud800
    before = pairs.read_bytes(), align.read_bytes()
    out = tmp_path / "out"
    assert main(export_args(out, pairs, align, "--formats", formats)) == 2
    assert one_line_error(capsys) == f"error: {pairs}:1: text is not valid Unicode (lone surrogate \\ud800)"
    assert not out.exists() and (pairs.read_bytes(), align.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["align.jsonl", "pairs.jsonl"]


def test_a_lone_surrogate_in_the_alignment_or_the_rows_is_refused(tmp_path, deplain_pairs, capsys):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs, n=1)
    line = json.loads(align.read_text(encoding="utf-8"))
    align.write_text(json.dumps(dict(line, note="a\ud800")) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "out", pairs, align, "--formats", "moses")) == 2
    assert one_line_error(capsys) == f"error: {align}:1: text is not valid Unicode (lone surrogate \\ud800)"
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"doc_id": "d", "complex": "Ein Satz.", "simple": "a\udc80"}) + "\n", encoding="utf-8")
    assert main(["export", str(tmp_path / "out"), "--rows", str(rows), "--lang", "de"]) == 2
    assert one_line_error(capsys) == f"error: {rows}:1: text is not valid Unicode (lone surrogate \\udc80)"
    assert not (tmp_path / "out").exists()


def raw_text_pair(deplain_pair, **extra):
    """A DEplain pair with both sides given as raw text (paragraphs at blank lines), no gold."""
    pair = {"id": deplain_pair["id"], "lang": "de", **extra}
    for name in ("complex", "simple"):
        pair[name] = {"text": "\n\n".join(" ".join(p) for p in deplain_pair[name]["paragraphs"])}
    return pair


def exported_rows(out):
    return [(r.complex, r.simple) for r in read_rows(str(out / "pairs.jsonl"))]


def test_the_pairs_file_is_the_source_of_the_text(tmp_path, deplain_pairs, capsys):
    """export writes the text of --pairs: an alignment made from another version of a pair (its
    text edited since) is refused, naming the pair; an edit of another field is not a mismatch, and
    lines without made_from (as align-xling writes them) are compared by their sentences."""
    original = raw_text_pair(deplain_pairs[0], license="CC BY-SA 4.0")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(original, ensure_ascii=False) + "\n", encoding="utf-8")
    aligned = tmp_path / "aligned.jsonl"
    assert main(["align", str(pairs), str(aligned), "--method", "tfidf"]) == 0
    capsys.readouterr()
    assert main(export_args(tmp_path / "first", pairs, aligned, "--formats", "jsonl")) == 0
    expected = exported_rows(tmp_path / "first")
    assert expected

    word = deplain_pairs[0]["complex"]["paragraphs"][0][0].split()[0]
    edited = tmp_path / "edited.jsonl"
    changed = dict(original, complex={"text": original["complex"]["text"].replace(word, "Umgeschrieben", 1)})
    edited.write_text(json.dumps(changed, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "out", edited, aligned)) == 2
    assert one_line_error(capsys) == (
        f"error: {aligned}:1: the complex sentences of pair '{original['id']}' are not the pair's in {edited} "
        "(was it edited since it was aligned?): align the pair again"
    )
    assert not (tmp_path / "out").exists()

    relicensed = tmp_path / "relicensed.jsonl"
    relicensed.write_text(json.dumps(dict(original, license="CC BY 4.0"), ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "relicensed", relicensed, aligned, "--formats", "jsonl")) == 0
    assert exported_rows(tmp_path / "relicensed") == expected

    bare = tmp_path / "bare.jsonl"
    line = json.loads(aligned.read_text(encoding="utf-8"))
    assert line.pop("made_from")
    bare.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "bare", pairs, bare, "--formats", "jsonl")) == 0
    assert exported_rows(tmp_path / "bare") == expected
    assert main(export_args(tmp_path / "out", edited, bare)) == 2
    assert f"the complex sentences of pair '{original['id']}'" in one_line_error(capsys)


def test_sentences_an_alignment_carries_for_a_presegmented_side_must_be_the_pairs(tmp_path, deplain_pairs, capsys):
    """Such sentences are compared with the pair's (whitespace aside), and the pair's are written."""
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs, n=1)
    assert main(export_args(tmp_path / "bare", pairs, align, "--formats", "jsonl")) == 0
    line = json.loads(align.read_text(encoding="utf-8"))
    sentences = [s for p in deplain_pairs[0]["complex"]["paragraphs"] for s in p]
    spaced = [" " + s.replace(" ", "  ") for s in sentences]  # the same text but for whitespace
    align.write_text(json.dumps(dict(line, complex_sentences=spaced), ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "same", pairs, align, "--formats", "jsonl")) == 0
    assert exported_rows(tmp_path / "same") == exported_rows(tmp_path / "bare")
    other = sentences[:1] + ["Ein ganz anderer Satz."] + sentences[2:]
    align.write_text(json.dumps(dict(line, complex_sentences=other), ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(export_args(tmp_path / "out", pairs, align)) == 2
    assert f"the complex sentences of pair '{deplain_pairs[0]['id']}' are not the pair's" in one_line_error(capsys)
    assert not (tmp_path / "out").exists()


def test_a_presegmented_pair_whose_sentences_changed_since_is_refused(tmp_path, shared_data, capsys):
    """align carries no sentences for a pre-segmented side, so its line records their digest: a pair
    given gold and another license since still exports the same rows, while one with two sentences
    swapped since is refused in one line naming the pair, nothing written, from the command and from
    Python alike (the probe's case: a textberg article, a translation)."""
    article = json.loads(shared_data("textberg-dev-de-fr/pairs.jsonl").read_text(encoding="utf-8").splitlines()[0])
    pair = {key: article[key] for key in ("id", "lang", "lang_simple", "license")}
    for name in ("complex", "simple"):
        pair[name] = {"paragraphs": [article[name]["paragraphs"][0][:20]]}
    pairs, aligned = tmp_path / "pairs.jsonl", tmp_path / "aligned.jsonl"
    pairs.write_text(json.dumps(pair, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["align", str(pairs), str(aligned), "--method", "intersection"]) == 0
    assert main(export_args(tmp_path / "first", pairs, aligned, "--formats", "jsonl")) == 0
    expected = exported_rows(tmp_path / "first")
    assert expected

    reviewed = tmp_path / "reviewed.jsonl"
    line = json.loads(aligned.read_text(encoding="utf-8"))
    assert line["made_from"]["sentences"] == {
        name: sentences_digest([s for p in pair[name]["paragraphs"] for s in p]) for name in ("complex", "simple")
    }
    gold = [[b["complex"], b["simple"]] for b in line["alignments"]]
    reviewed.write_text(json.dumps(dict(pair, gold=gold, license="CC0-1.0"), ensure_ascii=False) + "\n", "utf-8")
    assert main(export_args(tmp_path / "reviewed-out", reviewed, aligned, "--formats", "jsonl")) == 0
    assert exported_rows(tmp_path / "reviewed-out") == expected

    paragraphs = [list(p) for p in pair["complex"]["paragraphs"]]
    k = next(k for k, p in enumerate(paragraphs) if len(p) > 1 and p[0] != p[1])
    paragraphs[k][:2] = paragraphs[k][1::-1]
    edited = tmp_path / "edited.jsonl"
    edited.write_text(json.dumps(dict(pair, complex={"paragraphs": paragraphs}), ensure_ascii=False) + "\n", "utf-8")
    before = {path: path.read_bytes() for path in (edited, aligned)}
    capsys.readouterr()
    assert main(export_args(tmp_path / "out", edited, aligned)) == 2
    assert one_line_error(capsys) == (
        f"error: {aligned}:1: the complex sentences of pair '{pair['id']}' are not the pair's in {edited} "
        "(was it edited since it was aligned?): align the pair again"
    )
    assert not (tmp_path / "out").exists()
    assert {path: path.read_bytes() for path in before} == before
    with pytest.raises(InputError, match=f"the complex sentences of pair '{pair['id']}' are not the pair's"):
        rows_from_alignment_file(str(edited), str(aligned))


def test_align_xling_output_exports_from_its_pair_file(tmp_path, capsys):
    """align-xling's lines carry both sides' sentences and no made_from: they match their pairs."""
    xling = Path(__file__).parent / "data" / "xling" / "pairs.jsonl"
    aligned = tmp_path / "aligned.jsonl"
    assert main(["align-xling", str(xling), str(aligned)]) == 0
    capsys.readouterr()
    lines = [json.loads(raw) for raw in aligned.read_text(encoding="utf-8").splitlines()]
    assert lines and not any("made_from" in line for line in lines)
    assert main(export_args(tmp_path / "out", xling, aligned, "--formats", "moses")) == 0
    beads = sum(1 for line in lines for b in line["alignments"] if b["complex"] and b["simple"])
    assert len((tmp_path / "out" / "pairs.de-fr.de").read_text(encoding="utf-8").splitlines()) == beads
    edited = tmp_path / "edited.jsonl"
    edited.write_text(xling.read_text(encoding="utf-8").replace("fest im Griff", "im Griff", 1), encoding="utf-8")
    assert main(export_args(tmp_path / "edited-out", edited, aligned)) == 2
    assert "the complex sentences of pair 'de-hitze|fr-canicule' are not the pair's" in one_line_error(capsys)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e999"])
def test_min_score_must_be_a_finite_number(tmp_path, deplain_pairs, capsys, value):
    pairs, align = write_gold_alignments(tmp_path, deplain_pairs, n=1)
    assert main(export_args(tmp_path / "out", pairs, align, f"--min-score={value}")) == 2
    shown = {"nan": "nan", "inf": "inf", "-inf": "-inf", "1e999": "inf"}[value]
    assert one_line_error(capsys) == f"error: --min-score = {shown}: must be a finite number"
    assert not (tmp_path / "out").exists()


def test_sigterm_while_an_export_writes_leaves_nothing_behind(tmp_path, deplain_pairs, capsys, monkeypatch):
    """A job scheduler's stop (SIGTERM) while the files are written ends the command as Ctrl+C does:
    one line, exit status 143, the staging folder removed and no output folder."""
    import os
    import signal

    from spacy_simalign.corpus import export

    pairs, align = write_gold_alignments(tmp_path, deplain_pairs)
    write_delimited = export.write_delimited

    def stopped_while_writing(rows, path, *args, **kwargs):
        write_delimited(rows, path, *args, **kwargs)  # a file is in the staging folder
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(export, "write_delimited", stopped_while_writing)
    missed = []  # a SIGTERM the command did not take: recorded here instead of ending the test run
    previous = signal.signal(signal.SIGTERM, lambda signum, frame: missed.append(signum))
    try:
        out = tmp_path / "published"
        argv = ["export", str(out), "--pairs", str(pairs), "--alignments", str(align), "--formats", "jsonl,tsv"]
        assert main(argv) == 143 and missed == []
        assert capsys.readouterr().err.strip().splitlines() == ["error: terminated (SIGTERM)"]
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([pairs.name, align.name])
        os.kill(os.getpid(), signal.SIGTERM)  # the command gave the handler back
        assert missed == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)
