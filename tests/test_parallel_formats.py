"""`export --formats moses,tmx,bitext`: the Text+Berg alignment as Moses files, a TMX that
translate-toolkit reads back, a headerless bitext TSV; texts verbatim but for the documented
mapping (corpus.parallel), OPUS's file names, --min-score in every format."""

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import with_fake_encoder

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.methods import method_config
from spacy_simalign.core.errors import InputError
from spacy_simalign.corpus.export import export_corpus
from spacy_simalign.corpus.parallel import LanguagePair, one_line
from spacy_simalign.corpus.sentence_pairs import SentencePair

TEXTBERG = "textberg-dev-de-fr/pairs.jsonl"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# what the formats must carry: XML's own characters, a control character XML 1.0 cannot hold, and
# the tabs and line breaks a line of a Moses file cannot hold
SPECIAL = {("complex", 100): "Tom & Jerry <b>\x07 ", ("simple", 120): "A\tB\u2028C\nD "}


@pytest.fixture(scope="module")
def textberg(tmp_path_factory, shared_data):
    """(pairs, alignments, expected) of the Text+Berg article, some sentences given SPECIAL
    characters, aligned by the default aligner with the fake encoder; expected: the beads with
    both sides, as (complex text, simple text, score), their sentences joined by one space."""
    folder = tmp_path_factory.mktemp("textberg")
    pair = json.loads(shared_data(TEXTBERG).read_text(encoding="utf-8").splitlines()[0])
    for (side, index), prefix in SPECIAL.items():
        pair[side]["paragraphs"][0][index] = prefix + pair[side]["paragraphs"][0][index]
    pairs, alignments, config = folder / "pairs.jsonl", folder / "aligned.jsonl", folder / "crf.cfg"
    pairs.write_text(json.dumps(pair, ensure_ascii=False) + "\n", encoding="utf-8")
    config.write_text(with_fake_encoder(method_config("crf")).to_str(), encoding="utf-8")
    assert main(["align", str(pairs), str(alignments), "--config", str(config)]) == 0
    sentences = {side: [s for para in pair[side]["paragraphs"] for s in para] for side in ("complex", "simple")}
    beads = json.loads(alignments.read_text(encoding="utf-8"))["alignments"]
    expected = [
        (
            " ".join(sentences["complex"][i] for i in bead["complex"]),
            " ".join(sentences["simple"][j] for j in bead["simple"]),
            bead["score"],
        )
        for bead in beads
        if bead["complex"] and bead["simple"]
    ]
    for (side, index), prefix in SPECIAL.items():  # the special sentences are in the export
        assert any(index in bead[side] for bead in beads if bead["complex"] and bead["simple"])
    return pairs, alignments, expected


@pytest.fixture(scope="module")
def exported(textberg, tmp_path_factory):
    pairs, alignments, _ = textberg
    out = tmp_path_factory.mktemp("export") / "out"
    formats = "moses,tmx,bitext,csv"
    assert main(["export", str(out), "--pairs", str(pairs), "--alignments", str(alignments), "--formats", formats]) == 0
    return out


def test_moses_files_are_line_aligned_beads_written_verbatim(exported, textberg):
    expected = textberg[2]
    de = (exported / "pairs.de-fr.de").read_text(encoding="utf-8").split("\n")
    fr = (exported / "pairs.de-fr.fr").read_text(encoding="utf-8").split("\n")
    assert de[-1] == fr[-1] == ""  # every line ends with \n
    assert len(de) == len(fr) == len(expected) + 1
    assert list(zip(de[:-1], fr[:-1])) == [(one_line(c), one_line(s)) for c, s, _ in expected]
    assert any(line.startswith("- ") for line in de), "a sentence starting with '-' is written as it is"
    assert any("\tB" in s for _, s, _ in expected) and any("A B C D" in line for line in fr)
    assert "'- " in (exported / "pairs.csv").read_text(encoding="utf-8")  # the spreadsheet format still escapes


def test_a_tmx_read_by_translate_toolkit_holds_every_bead(exported, textberg):
    tmx = pytest.importorskip("translate.storage.tmx", reason="translate-toolkit (the test extra) reads the TMX")
    expected = textberg[2]
    units = tmx.tmxfile.parsefile(str(exported / "pairs.tmx")).units
    assert len(units) == len(expected)
    mapped = [(c.replace("\x07", "\ufffd"), s) for c, s, _ in expected]
    assert [(unit.source, unit.target) for unit in units] == mapped
    assert any("Tom & Jerry <b>\ufffd" in unit.source for unit in units)
    assert any("A\tB\u2028C\nD" in unit.target for unit in units)


def test_the_tmx_header_languages_and_properties(exported, textberg):
    root = ET.parse(exported / "pairs.tmx").getroot()
    assert root.get("version") == "1.4"
    header = root.find("header").attrib
    assert {k: header[k] for k in ("creationtool", "srclang", "segtype", "datatype", "adminlang")} == {
        "creationtool": "spacy-simalign",
        "srclang": "de",
        "segtype": "sentence",
        "datatype": "plaintext",
        "adminlang": "en",
    }
    assert header["creationtoolversion"] and header["o-tmf"]
    first = root.find("body/tu")
    props = {p.get("type"): p.text for p in first.findall("prop")}
    assert props == {"x-document-id": "textberg-1957-dev", "x-score": str(textberg[2][0][2])}
    assert [tuv.get(XML_LANG) for tuv in first.findall("tuv")] == ["de", "fr"]
    assert first.find("tuv/prop") is None  # x-side is for a simplification, where both sides are one language


def test_bitext_has_no_header_and_four_columns(exported, textberg):
    lines = (exported / "pairs.bitext.tsv").read_text(encoding="utf-8").split("\n")[:-1]
    expected = textberg[2]
    assert [line.split("\t") for line in lines] == [
        [one_line(c), one_line(s), str(score), "textberg-1957-dev"] for c, s, score in expected
    ]


def rows_file(tmp_path, rows):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_a_simplification_has_complex_and_simple_files_and_x_side(tmp_path, deplain_pairs):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(json.dumps(deplain_pairs[0], ensure_ascii=False) + "\n", encoding="utf-8")
    gold = tmp_path / "gold.jsonl"
    beads = [{"complex": c, "simple": s, "score": 1.0} for c, s in deplain_pairs[0]["gold"]]
    gold.write_text(json.dumps({"id": deplain_pairs[0]["id"], "alignments": beads}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["export", str(out), "--pairs", str(pairs), "--alignments", str(gold), "--formats", "moses,tmx"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "pairs.complex", "pairs.simple", "pairs.tmx"]
    lines = (out / "pairs.complex").read_text(encoding="utf-8").splitlines()
    assert len(lines) == len((out / "pairs.simple").read_text(encoding="utf-8").splitlines()) == len(beads)
    tuvs = ET.parse(out / "pairs.tmx").getroot().find("body/tu").findall("tuv")
    assert [(t.get(XML_LANG), t.find("prop").text) for t in tuvs] == [("de", "complex"), ("de", "simple")]


def test_one_pair_of_moses_files_per_language_pair(tmp_path):
    rows = [
        {"doc_id": "a", "complex": "Ein Satz.", "simple": "Un.", "lang": "de", "lang_simple": "fr"},
        {"doc_id": "b", "complex": "Een zin.", "simple": "Zin.", "lang": "nl"},
        {"doc_id": "c", "complex": "Ein Satz.", "simple": "Satz.", "lang": "de"},
        {"doc_id": "d", "complex": "Noch ein Satz.", "simple": "Deux.", "lang": "de", "lang_simple": "fr"},
    ]
    out = tmp_path / "out"
    assert main(["export", str(out), "--rows", rows_file(tmp_path, rows), "--formats", "moses"]) == 0
    files = {p.name: p.read_text(encoding="utf-8") for p in out.iterdir() if p.name != "README.md"}
    assert files == {
        "pairs.de-fr.de": "Ein Satz.\nNoch ein Satz.\n",
        "pairs.de-fr.fr": "Un.\nDeux.\n",
        "pairs.nl.complex": "Een zin.\n",
        "pairs.nl.simple": "Zin.\n",
        "pairs.de.complex": "Ein Satz.\n",
        "pairs.de.simple": "Satz.\n",
    }


def test_min_score_leaves_out_low_beads_in_every_format(tmp_path):
    rows = [
        {"doc_id": "a", "complex": "Niedrig.", "simple": "N.", "score": 0.2},
        {"doc_id": "a", "complex": "Hoch.", "simple": "H.", "score": 0.8},
        {"doc_id": "b", "complex": "Ohne.", "simple": "O."},
    ]
    out = tmp_path / "out"
    formats = "jsonl,csv,tsv,moses,tmx,bitext"
    args = ["export", str(out), "--rows", rows_file(tmp_path, rows), "--lang", "de", "--formats", formats]
    assert main([*args, "--min-score", "0.5"]) == 0
    assert (out / "pairs.complex").read_text(encoding="utf-8") == "Hoch.\nOhne.\n"
    assert (out / "pairs.bitext.tsv").read_text(encoding="utf-8") == "Hoch.\tH.\t0.8\ta\nOhne.\tO.\t\tb\n"
    assert [json.loads(line)["complex"] for line in (out / "pairs.jsonl").read_text(encoding="utf-8").splitlines()] == [
        "Hoch.",
        "Ohne.",
    ]
    assert len((out / "pairs.csv").read_text(encoding="utf-8").splitlines()) == 3  # header and two rows
    assert len(ET.parse(out / "pairs.tmx").getroot().findall("body/tu")) == 2
    assert "below 0.5 are left out" in (out / "README.md").read_text(encoding="utf-8")


def test_moses_without_languages_is_an_error_and_writes_nothing(tmp_path):
    rows = [SentencePair("a", "Ein Satz.", "Satz.")]
    out = tmp_path / "out"
    with pytest.raises(InputError, match="document 'a' has none"):
        export_corpus(rows, str(out), ["bitext", "tmx"], languages={"b": LanguagePair("de", "de")})
    assert not out.exists()
