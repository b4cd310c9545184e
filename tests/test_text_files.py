"""Two text files or two folders in: `align COMPLEX SIMPLE OUTPUT` and `pairs` give the alignments
and the pair JSONL of the same documents given as pair JSONL (one sentence per line on Text+Berg,
raw text on DEplain), folders pair by stem, and each bad input is one line with nothing written."""

import json
import unicodedata

import pytest
from conftest import SMALL, with_fake_encoder

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.formats.text_files import line_paragraphs, read_text

TEXTBERG = "textberg-dev-de-fr/pairs.jsonl"


@pytest.fixture(scope="module")
def fake_crf(tmp_path_factory):
    """The default aligner's config with the fake encoder (what is shown is that both routes agree)."""
    path = tmp_path_factory.mktemp("config") / "crf.cfg"
    path.write_text(with_fake_encoder(method_config("crf")).to_str(), encoding="utf-8")
    return str(path)


def lines_of(paragraphs):
    """A one-sentence-per-line file's text: a line per sentence, a blank line between paragraphs."""
    return "\n\n".join("\n".join(para) for para in paragraphs) + "\n"


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def without_provenance(lines):
    return [{k: v for k, v in line.items() if k not in ("id", "made_from")} for line in lines]


def test_textberg_one_sentence_per_line_files_align_as_the_pair_jsonl(tmp_path, shared_data, fake_crf, capsys):
    source = shared_data(TEXTBERG)
    pair = json.loads(source.read_text(encoding="utf-8").splitlines()[0])
    de, fr = tmp_path / "textberg.de", tmp_path / "textberg.fr"
    de.write_text(lines_of(pair["complex"]["paragraphs"]), encoding="utf-8")
    fr.write_text(lines_of(pair["simple"]["paragraphs"]), encoding="utf-8")
    from_files, from_pairs = tmp_path / "files.jsonl", tmp_path / "pairs.jsonl"
    options = ["--config", fake_crf]
    assert (
        main(
            [
                "align",
                str(de),
                str(fr),
                str(from_files),
                "--lang",
                "de",
                "--lang-simple",
                "fr",
                "--one-sentence-per-line",
                *options,
            ]
        )
        == 0
    )
    assert main(["align", str(source), str(from_pairs), *options]) == 0
    got, expected = read_jsonl(from_files), read_jsonl(from_pairs)
    assert without_provenance(got) == without_provenance(expected)
    assert got[0]["id"] == "textberg" and len(got[0]["alignments"]) > 300
    assert "complex_sentences" not in got[0]  # pre-segmented sides: the indices are the lines'

    written = tmp_path / "written.jsonl"
    assert (
        main(
            ["pairs", str(de), str(fr), str(written), "--lang", "de", "--lang-simple", "fr", "--one-sentence-per-line"]
        )
        == 0
    )
    (obj,) = read_jsonl(written)
    assert obj == {
        "id": "textberg",
        "lang": "de",
        "lang_simple": "fr",
        "complex": pair["complex"],
        "simple": pair["simple"],
    }


def test_raw_text_files_align_as_pair_jsonl_with_raw_text_sides(tmp_path, deplain_pairs):
    by_id = {p["id"]: p for p in deplain_pairs}
    record = parse_pair(by_id[SMALL[0]])
    texts = {side: record.side_text(side) for side in ("complex", "simple")}
    complex_file, simple_file = tmp_path / "doc.complex.txt", tmp_path / "doc.simple.txt"
    complex_file.write_text(texts["complex"], encoding="utf-8")
    simple_file.write_text(texts["simple"], encoding="utf-8")
    raw_pairs = tmp_path / "raw.jsonl"
    raw_pairs.write_text(
        json.dumps(
            {"id": "x", "lang": "de", "complex": {"text": texts["complex"]}, "simple": {"text": texts["simple"]}}
        )
        + "\n",
        encoding="utf-8",
    )
    from_files, from_pairs = tmp_path / "files.jsonl", tmp_path / "pairs.jsonl"
    assert (
        main(["align", str(complex_file), str(simple_file), str(from_files), "--lang", "de", "--method", "tfidf"]) == 0
    )
    assert main(["align", str(raw_pairs), str(from_pairs), "--method", "tfidf"]) == 0
    got, expected = read_jsonl(from_files), read_jsonl(from_pairs)
    assert without_provenance(got) == without_provenance(expected)
    assert got[0]["id"] == "doc.complex" and got[0]["alignments"]
    assert len(got[0]["complex_sentences"]) == len(record.side("complex").sentences)

    written, aligned = tmp_path / "written.jsonl", tmp_path / "aligned.jsonl"
    assert main(["pairs", str(complex_file), str(simple_file), str(written), "--lang", "de"]) == 0
    (obj,) = read_jsonl(written)
    assert obj["complex"] == {"text": texts["complex"]} and obj["simple"] == {"text": texts["simple"]}
    assert main(["align", str(written), str(aligned), "--method", "tfidf"]) == 0
    assert aligned.read_bytes() == from_files.read_bytes()  # made_from too: the same pairs


def test_a_finished_run_resumes_to_nothing(tmp_path, capsys):
    de, fr = tmp_path / "a.de", tmp_path / "a.fr"
    de.write_text("Der Hund schläft.\nDie Katze spielt.\n", encoding="utf-8")
    fr.write_text("Le chien dort.\nLe chat joue.\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    args = ["align", str(de), str(fr), str(out), "--lang", "de", "--lang-simple", "fr", "--method", "tfidf"]
    assert main(args) == 0
    assert main([*args, "--resume"]) == 0
    assert "is complete: it holds all 1 pairs of" in capsys.readouterr().err


def make_folders(tmp_path, complex_files, simple_files):
    folders = []
    for name, files in (("de", complex_files), ("fr", simple_files)):
        folder = tmp_path / name
        folder.mkdir()
        for file_name, text in files.items():
            path = folder / file_name
            path.parent.mkdir(exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text, encoding="utf-8")
        folders.append(str(folder))
    return folders


def test_folders_pair_their_files_by_stem_in_sorted_order(tmp_path, capsys):
    de, fr = make_folders(
        tmp_path,
        {
            "doc2.de": "Zwei.\n",
            "doc1.de": "Eins.\n\nNoch eins.\n",
            "only-de.de": "Allein.\n",
            ".hidden.de": "x\n",
            "sub/doc3.de": "x\n",
        },
        {"doc1.fr": "Un.\n", "doc2.fr": "Deux.\n", "only-fr.fr": "Seul.\n", ".hidden.fr": "x\n"},
    )
    out = tmp_path / "pairs.jsonl"
    assert main(["pairs", de, fr, str(out), "--lang", "de", "--lang-simple", "fr", "--one-sentence-per-line"]) == 0
    objects = read_jsonl(out)
    assert [o["id"] for o in objects] == ["doc1", "doc2"]
    assert objects[0]["complex"] == {"paragraphs": [["Eins."], ["Noch eins."]]}
    assert objects[0]["simple"] == {"paragraphs": [["Un."]]}
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "2 files with no file of the same stem" in warnings[0]
    assert "only-de.de" in warnings[0] and "only-fr.fr" in warnings[0] and "hidden" not in warnings[0]


@pytest.mark.parametrize("complex_form, simple_form", [("NFC", "NFD"), ("NFD", "NFC")])
def test_stems_pair_whatever_their_unicode_normalisation(tmp_path, capsys, complex_form, simple_form):
    """macOS writes names decomposed (NFD), most other systems composed (NFC): `café` pairs
    either way, and the pair's id is the complex file's stem as it is written."""
    stem = "Café Müller"
    complex_stem, simple_stem = (unicodedata.normalize(form, stem) for form in (complex_form, simple_form))
    assert complex_stem != simple_stem
    de, fr = make_folders(
        tmp_path, {f"{complex_stem}.de": "Ein Satz.\n", "b.de": "Zwei.\n"}, {f"{simple_stem}.fr": "Une phrase.\n"}
    )
    out = tmp_path / "pairs.jsonl"
    assert main(["pairs", de, fr, str(out), "--lang", "de", "--lang-simple", "fr"]) == 0
    objects = read_jsonl(out)
    assert [o["id"] for o in objects] == [complex_stem]
    assert (objects[0]["complex"], objects[0]["simple"]) == ({"text": "Ein Satz.\n"}, {"text": "Une phrase.\n"})
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "1 file with no file of the same stem" in warnings[0] and "b.de" in warnings[0]


def test_an_empty_file_is_an_empty_side_with_one_warning(tmp_path, capsys):
    de, fr = make_folders(tmp_path, {"a.de": "Ein Satz.\n", "b.de": ""}, {"a.fr": "", "b.fr": "\n\n"})
    out = tmp_path / "out.jsonl"
    assert main(["align", de, fr, str(out), "--lang", "de", "--lang-simple", "fr", "--method", "tfidf"]) == 0
    assert [(o["id"], o["alignments"]) for o in read_jsonl(out)] == [("a", []), ("b", [])]
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "a.fr" in warnings[0] and "b.de" in warnings[0] and "b.fr" in warnings[0]


def test_lines_are_sentences_exactly_and_line_ends_are_read_as_newlines(tmp_path):
    path = tmp_path / "x.txt"
    path.write_bytes("\ufeff  Erste Zeile. \r\n- Zweite\r\n\u200b\r\n\r\nDritte\rVierte".encode("utf-8"))
    assert line_paragraphs(read_text(str(path))) == [["  Erste Zeile. ", "- Zweite"], ["Dritte", "Vierte"]]


ERRORS = {
    "not UTF-8": (
        lambda tmp: make_folders(
            tmp, {"a.de": "Gut.\n", "b.de": b"Zeile eins.\n\xe4rger\n"}, {"a.fr": "Bon.\n", "b.fr": "Oui.\n"}
        ),
        [],
        "b.de:2: not UTF-8 (byte 0)",
    ),
    "no stem in common": (
        lambda tmp: make_folders(tmp, {"a.de": "Gut.\n"}, {"b.fr": "Bon.\n"}),
        [],
        "has the stem of a file of",
    ),
    "a file with a folder": (
        lambda tmp: [make_folders(tmp, {"a.de": "Gut.\n"}, {"a.fr": "Bon.\n"})[0] + "/a.de", str(tmp / "fr")],
        [],
        "a file, but",
    ),
    "a stem twice": (
        lambda tmp: make_folders(tmp, {"a.de": "Gut.\n", "a.txt": "Auch.\n"}, {"a.fr": "Bon.\n"}),
        [],
        "two files with the stem 'a': a.de and a.txt",
    ),
    "stems equal but for NFC/NFD": (
        lambda tmp: make_folders(
            tmp, {"caf\u00e9.de": "Gut.\n", "cafe\u0301.txt": "Auch.\n"}, {"caf\u00e9.fr": "Bon.\n"}
        ),
        [],
        "de: two files with stems equal once composed (Unicode NFC): cafe\u0301.txt and caf\u00e9.de, "
        "written 'cafe\\u0301' and 'caf\\xe9'",
    ),
    "an unknown language": (
        lambda tmp: make_folders(tmp, {"a.de": "Gut.\n"}, {"a.fr": "Bon.\n"}),
        ["--lang-simple", "xx"],
        "unknown language 'xx' given with --lang-simple",
    ),
}


@pytest.mark.parametrize("command", ["align", "pairs"])
@pytest.mark.parametrize("case", sorted(ERRORS))
def test_bad_input_is_one_line_and_nothing_written(tmp_path, capsys, case, command):
    make, extra, message = ERRORS[case]
    complex_path, simple_path = make(tmp_path)
    out = tmp_path / "out" / "result.jsonl"
    out.parent.mkdir()
    method = ["--method", "tfidf"] if command == "align" else []
    assert main([command, complex_path, simple_path, str(out), "--lang", "de", *method, *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and message in err[0], err
    assert list(out.parent.iterdir()) == []


def test_the_options_of_text_files_need_text_files(tmp_path, capsys):
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(
        '{"id": "a", "lang": "de", "complex": {"text": "A."}, "simple": {"text": "B."}}\n', encoding="utf-8"
    )
    assert main(["align", str(pairs), str(tmp_path / "o.jsonl"), "--one-sentence-per-line"]) == 2
    assert "--one-sentence-per-line is for two text files or folders" in capsys.readouterr().err
    assert main(["align", str(pairs), str(pairs), str(tmp_path / "o.jsonl")]) == 2
    assert "give --lang" in capsys.readouterr().err
    assert main(["align", "-", str(pairs), str(tmp_path / "o.jsonl"), "--lang", "de"]) == 2
    assert "standard input" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()
