"""The data recipes: each set of ../shared/data rebuilt from a small archive in its upstream layout (a
GitHub archive, one top folder REPO-COMMIT/), by the command that the projects run (benchmarks/scripts,
the user's project's data_sets.py and wikimanual_pairs.py, the package's convert-deplain). Each output
is compared with bytes written here and, where ../shared/data/recipes is beside the clone, with what
the recipe that made ../shared/data gives on the same files. A checksum that differs writes nothing."""

import csv
import hashlib
import io
import json
import os
import pickle
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "benchmarks" / "scripts"
USER_PROJECT = ROOT / "project"  # the user's project's scripts
# ../shared/data beside the clone, or $SIMALIGN_SHARED_DATA (as conftest.py finds the seed corpora)
SHARED_RECIPES = (
    Path(os.environ.get("SIMALIGN_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data") / "recipes"
)
TOP = "Repo-0123abc"


def md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


def make_archive(path: Path, files: dict) -> Path:
    """A .tar.gz holding `files` (path below the top folder -> text or bytes) under TOP/, as GitHub packs a repository."""
    with tarfile.open(path, "w:gz") as archive:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            info = tarfile.TarInfo(f"{TOP}/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def extract(archive: Path, folder: Path) -> Path:
    """The archive unpacked, as the shared recipes read it: the repository's top folder."""
    with tarfile.open(archive) as handle:
        handle.extractall(folder)
    return folder / TOP


def run(script: Path, *args, cwd=None):
    """A recipe run as its project command runs it: its own Python file, in a fresh process."""
    return subprocess.run(
        [sys.executable, str(script), *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=60
    )


def shared_recipe(name: str, *args, cwd=None) -> None:
    """Run ../shared/data/recipes/NAME (the definition of the set) on unpacked files; skip without ../shared."""
    if not (SHARED_RECIPES / name).is_file():
        pytest.skip(
            f"needs the seed corpora: {SHARED_RECIPES / name} is absent (the comparison with the shared recipe)"
        )
    done = run(SHARED_RECIPES / name, *args, cwd=cwd)
    assert done.returncode == 0, done.stderr


# -- Text+Berg (Bleualign) ----------------------------------------------------------------------

TEXTBERG = {
    "eval/eval1957.de": "Die Hütte .\n.EOA\nDer Weg ist steil  \nWir steigen .\nOben .\n",
    "eval/eval1957.fr": "La cabane .\n.EOA\nLe chemin est raide et nous montons .\nEn haut .\n",
    "eval/golddev.py": "# gold\ngoldalign = [((0,), (0,)), ((1, 2), (1,)), ((3,), ()), ((), (2,))]\n",
    "README.md": "Bleualign\n",
}
TEXTBERG_OUT = (
    '{"id": "textberg-1957-dev", "lang": "de", "lang_simple": "fr", '
    '"corpus": "Text+Berg (SAC yearbook 1957), Bleualign dev set", "license": "GPL-2.0 (distributed with Bleualign)", '
    '"complex": {"paragraphs": [["Die Hütte .", "Der Weg ist steil", "Wir steigen .", "Oben ."]]}, '
    '"simple": {"paragraphs": [["La cabane .", "Le chemin est raide et nous montons .", "En haut ."]]}, '
    '"gold": [[[0], [0]], [[1, 2], [1]]]}\n'
)


def test_textberg_pairs_from_the_bleualign_archive(tmp_path):
    archive = make_archive(tmp_path / "bleualign.tar.gz", TEXTBERG)
    done = run(SCRIPTS / "textberg_pairs.py", archive, tmp_path / "data", "--md5", md5(TEXTBERG_OUT.encode()))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "textberg-dev-de-fr" / "pairs.jsonl").read_text(encoding="utf-8") == TEXTBERG_OUT
    raw = extract(archive, tmp_path / "raw")
    shared_recipe("textberg_dev_to_jsonl.py", raw / "eval", tmp_path / "shared.jsonl")
    assert (tmp_path / "shared.jsonl").read_bytes() == TEXTBERG_OUT.encode("utf-8")


def test_textberg_gold_is_read_as_a_literal_never_run(tmp_path):
    files = dict(TEXTBERG, **{"eval/golddev.py": "import os\ngoldalign = [os.system('touch RAN')]\n"})
    archive = make_archive(tmp_path / "bleualign.tar.gz", files)
    done = run(SCRIPTS / "textberg_pairs.py", archive, "data", "--md5", "0" * 32, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "error: eval/golddev.py: goldalign is not a literal list of beads\n"
    assert not (tmp_path / "RAN").exists() and not (tmp_path / "data").exists()


# -- Simple German Corpus -----------------------------------------------------------------------


def pair_hash(simple: str, normal: str) -> str:
    """The file name SGC gives a pair: the decimal SHA-1 of the two file names joined by '___'."""
    joined = simple.rsplit("/", 1)[1] + "___" + normal.rsplit("/", 1)[1]
    return str(int(hashlib.sha1(joined.encode()).hexdigest(), 16))


MDR = ("www.mdr.de/leicht/a.html", "www.mdr.de/nachrichten/a.html")
OTHER = ("www.example.org/einfach/b.html", "www.example.org/b.html")  # not one of the six websites
TAZ = ("taz.de/leicht/c.html", "taz.de/c.html")
SGC = {
    "results/websites_samples.pkl": pickle.dumps([list(MDR), list(OTHER), list(TAZ)]),
    f"results/hand_aligned/{pair_hash(*MDR)}.simple": "Der Zug fährt.\nEr ist schnell.\nDas ist gut. \n\n",
    f"results/hand_aligned/{pair_hash(*MDR)}.normal": "Der schnelle Zug fährt.\nDer schnelle Zug fährt.\nGut so.\n\n",
    f"results/hand_aligned/{pair_hash(*OTHER)}.simple": "Eins.\n",
    f"results/hand_aligned/{pair_hash(*OTHER)}.normal": "Eins und zwei.\n",
    f"results/hand_aligned/{pair_hash(*TAZ)}.simple": "Es regnet.\r\nEs ist kalt.",
    f"results/hand_aligned/{pair_hash(*TAZ)}.normal": "Es regnet kalt.\r\nEs regnet kalt.",
}


def sgc_line(pair, website, complex_, simple, gold):
    record = {
        "id": f"sgc-{website}-{pair_hash(*pair)[:12]}",
        "lang": "de",
        "lang_simple": "de",
        "website": website,
        "complex": {"paragraphs": [complex_]},
        "simple": {"paragraphs": [simple]},
        "gold": gold,
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


SGC_LINES = {
    "mdr.de": sgc_line(
        MDR,
        "mdr.de",
        ["Der schnelle Zug fährt.", "Gut so."],
        ["Der Zug fährt.", "Er ist schnell.", "Das ist gut."],
        [[[0], [0, 1]], [[1], [2]]],
    ),
    "taz.de": sgc_line(TAZ, "taz.de", ["Es regnet kalt."], ["Es regnet.", "Es ist kalt."], [[[0], [0, 1]]]),
}


def test_sgc_pairs_of_the_six_websites_from_the_corpus_archive(tmp_path):
    expected = "".join(
        SGC_LINES[site] for site in sorted(SGC_LINES, key=lambda s: pair_hash(*{"mdr.de": MDR, "taz.de": TAZ}[s]))
    )
    archive = make_archive(tmp_path / "sgc.tar.gz", SGC)
    done = run(SCRIPTS / "sgc_pairs.py", archive, tmp_path / "data", "--md5", md5(expected.encode()))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "sgc-dev" / "pairs.jsonl").read_text(encoding="utf-8") == expected
    raw = extract(archive, tmp_path / "raw")
    shared_recipe("sgc_to_jsonl.py", raw / "results", tmp_path / "all.jsonl")
    lines = (tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 3  # the example.org pair too: the six websites are chosen after it
    kept = [line for line in lines if json.loads(line)["website"] in ("mdr.de", "taz.de")]
    assert "".join(kept).encode("utf-8") == expected.encode("utf-8")


class RunsCode:
    """Unpickled, this would run a shell command: what a pickle can do."""

    def __reduce__(self):
        import os

        return (os.system, ("touch PWNED",))


def test_sgc_refuses_a_pickle_that_could_run_code_without_unpickling_it(tmp_path):
    files = dict(SGC, **{"results/websites_samples.pkl": pickle.dumps([list(MDR), RunsCode()])})
    archive = make_archive(tmp_path / "sgc.tar.gz", files)
    done = run(SCRIPTS / "sgc_pairs.py", archive, "data", "--md5", "0" * 32, cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.startswith(
        "error: results/websites_samples.pkl: holds opcodes other than list and string ones ("
    )
    assert "REDUCE" in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "PWNED").exists() and not (tmp_path / "data").exists()


# -- TransRead ----------------------------------------------------------------------------------


def side_xml(paragraphs) -> str:
    """A TransRead side file: <p> of <s id> of <w> tokens."""
    out = ['<?xml version="1.0" encoding="utf-8"?>\n<text>']
    for para in paragraphs:
        out.append("<p>")
        for sid, words in para:
            out.append(f'<s id="{sid}">' + "".join(f"<w> {w} </w>" for w in words) + "</s>")
        out.append("</p>")
    return "\n".join(out + ["<p></p></text>\n"])


def links_xml(links) -> str:
    return (
        '<cesAlign><linkGrp toDoc="fr" fromDoc="en">'
        + "".join(f'<link xtargets="{x}"/>' for x in links)
        + "</linkGrp></cesAlign>\n"
    )


def book_files(book: str, n: int) -> dict:
    """One small book: n English sentences in two paragraphs, n French ones in one, 1:1 links and a 1:0."""
    en = [
        [(f"e{k}", [book, "sentence", str(k), "."]) for k in range(2)],
        [(f"e{k}", ["Then", str(k), "!"]) for k in range(2, n)],
    ]
    fr = [[(f"f{k}", ["Phrase", str(k), "de", book, "."]) for k in range(n - 1)]]
    links = ["e0;f0", "e1 e2;f1"] + [f"e{k};f{k - 1}" for k in range(3, n)] + [";"]
    folder = f"dat/novels/{book}_EN-FR"
    return {
        f"{folder}/cut_{book}_en.xml": side_xml(en),
        f"{folder}/cut_{book}_fr.xml": side_xml(fr),
        f"{folder}/{book}_sent_align_en-fr.xml": links_xml(links),
    }


def transread_line(book: str) -> str:
    return (
        f'{{"id": "transread-{book}", "lang": "en", "lang_simple": "fr", '
        f'"complex": {{"paragraphs": [["{book} sentence 0 .", "{book} sentence 1 ."], ["Then 2 !", "Then 3 !"]]}}, '
        f'"simple": {{"paragraphs": [["Phrase 0 de {book} .", "Phrase 1 de {book} .", "Phrase 2 de {book} ."]]}}, '
        '"gold": [[[0], [0]], [[1, 2], [1]], [[3], [2]]]}\n'
    )


def test_transread_pairs_of_the_three_dev_novels(tmp_path):
    files = {}
    for book in ("TheLastOfTheMohicans", "Emma", "Alice", "JaneEyre"):  # Alice: a novel not in the dev set
        files.update(book_files(book, 4))
    expected = "".join(transread_line(b) for b in ("Emma", "JaneEyre", "TheLastOfTheMohicans"))
    archive = make_archive(tmp_path / "transread.tar.gz", files)
    done = run(SCRIPTS / "transread_pairs.py", archive, tmp_path / "data", "--md5", md5(expected.encode()))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "data" / "transread-dev-en-fr" / "pairs.jsonl").read_text(encoding="utf-8") == expected
    raw = extract(archive, tmp_path / "raw")
    shared_recipe("transread_to_jsonl.py", raw / "dat" / "novels", tmp_path / "all.jsonl")
    lines = (tmp_path / "all.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    assert [json.loads(line)["id"] for line in lines][0] == "transread-Alice"
    assert "".join(lines[1:]).encode("utf-8") == expected.encode("utf-8")


# -- NTREX --------------------------------------------------------------------------------------

NTREX_TEXT = {
    "eng": ["Storm hits the coast.", "Trains stop.", " Prices rise. "],
    "deu": ["Sturm trifft die Küste.", "Züge halten.", "Preise steigen."],
    "fra": ["La tempête frappe la côte.", "Les trains s'arrêtent.", "Les prix montent."],
    "nld": ["Storm treft de kust.", "Treinen stoppen.", "Prijzen stijgen."],
}
NTREX = {
    "DOCUMENT_IDS.tsv": "storm-1\nstorm-1\nprices-2\n",
    "NTREX-128/newstest2019-src.eng.txt": "\n".join(NTREX_TEXT["eng"]) + "\n",
    "NTREX-128/newstest2019-ref.deu.txt": "\ufeff" + "\r\n".join(NTREX_TEXT["deu"]) + "\r\n",  # a byte order mark
    "NTREX-128/newstest2019-ref.fra.txt": "\n".join(NTREX_TEXT["fra"]) + "\n",
    "NTREX-128/newstest2019-ref.nld.txt": "\n".join(NTREX_TEXT["nld"]) + "\n",
    "NTREX-128/newstest2019-ref.spa.txt": "no\n",
}
NTREX_PAIRS = ("en-de", "en-fr", "en-nl", "de-fr", "de-nl", "fr-nl")
NTREX_DE_FR = (
    '{"id": "ntrex-de-fr-storm-1", "lang": "de", "lang_simple": "fr", '
    '"complex": {"paragraphs": [["Sturm trifft die Küste.", "Züge halten."]]}, '
    '"simple": {"paragraphs": [["La tempête frappe la côte.", "Les trains s\'arrêtent."]]}, '
    '"gold": [[[0], [0]], [[1], [1]]]}\n'
    '{"id": "ntrex-de-fr-prices-2", "lang": "de", "lang_simple": "fr", '
    '"complex": {"paragraphs": [["Preise steigen."]]}, "simple": {"paragraphs": [["Les prix montent."]]}, '
    '"gold": [[[0], [0]]]}\n'
)


def ntrex_expected(pair: str) -> bytes:
    """One pair file as the recipe's rules make it (checked against NTREX_DE_FR and the shared recipe)."""
    names = {"en": "eng", "de": "deu", "fr": "fra", "nl": "nld"}
    a, b = pair.split("-")
    out = []
    for doc, idx in (("storm-1", [0, 1]), ("prices-2", [2])):
        record = {
            "id": f"ntrex-{a}-{b}-{doc}",
            "lang": a,
            "lang_simple": b,
            "complex": {"paragraphs": [[NTREX_TEXT[names[a]][i].strip() for i in idx]]},
            "simple": {"paragraphs": [[NTREX_TEXT[names[b]][i].strip() for i in idx]]},
            "gold": [[[k], [k]] for k in range(len(idx))],
        }
        out.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(out).encode("utf-8")


def test_ntrex_six_pair_files_from_the_ntrex_archive(tmp_path):
    assert ntrex_expected("de-fr") == NTREX_DE_FR.encode("utf-8")
    archive = make_archive(tmp_path / "ntrex.tar.gz", NTREX)
    checksums = [f"--md5={pair}={md5(ntrex_expected(pair))}" for pair in NTREX_PAIRS]
    done = run(SCRIPTS / "ntrex_pairs.py", archive, tmp_path / "data", *checksums)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "data" / "ntrex-news"
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{pair}.jsonl" for pair in NTREX_PAIRS)
    for pair in NTREX_PAIRS:
        assert (folder / f"{pair}.jsonl").read_bytes() == ntrex_expected(pair), pair
    raw = extract(archive, tmp_path / "raw")
    shared_recipe("ntrex_to_jsonl.py", raw, tmp_path / "shared", cwd=tmp_path)
    for pair in NTREX_PAIRS:
        assert (tmp_path / "shared" / f"ntrex_{pair}.jsonl").read_bytes() == (folder / f"{pair}.jsonl").read_bytes()


def test_ntrex_needs_a_checksum_for_every_pair(tmp_path):
    archive = make_archive(tmp_path / "ntrex.tar.gz", NTREX)
    done = run(SCRIPTS / "ntrex_pairs.py", archive, tmp_path / "data", "--md5", f"en-de={md5(ntrex_expected('en-de'))}")
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "missing: en-fr, en-nl, de-fr, de-nl, fr-nl" in done.stderr
    assert not (tmp_path / "data").exists()


# -- Klexikon -----------------------------------------------------------------------------------

KLEXIKON = {
    "data/splits/validation/klexikon/Aare.txt": "Die Aare ist ein Fluss.\n\nSie fließt.\n",
    "data/splits/validation/wiki/Aare.txt": "== Geographie\nDie Aare ist ein Fluss in der Schweiz.\n",
    "data/splits/validation/klexikon/Zug.txt": b"Ein Zug\r\nf\xc3\xa4hrt.",
    "data/splits/validation/wiki/Zug.txt": "Ein Zug ist ein Fahrzeug.\n",
    "data/splits/train/klexikon/Hund.txt": "Ein Hund.\n",
    "data/splits/validation/README.md": "not a text of the set\n",
}


def test_klexikon_validation_copied_unchanged_and_checked_by_its_manifest(tmp_path):
    copied = {
        name.split("validation/", 1)[1]: content if isinstance(content, bytes) else content.encode("utf-8")
        for name, content in KLEXIKON.items()
        if "/validation/" in name and name.endswith(".txt")
    }
    # the manifest: md5sum's lines `MD5  PATH`, sorted by PATH, then their MD5
    listing = "".join(f"{md5(copied[name])}  {name}\n" for name in sorted(copied))
    assert listing.splitlines()[0].endswith("  klexikon/Aare.txt")
    archive = make_archive(tmp_path / "klexikon.tar.gz", KLEXIKON)
    out = tmp_path / "data" / "klexikon-validation"
    out.mkdir(parents=True)
    (out / "stale.txt").write_text("from an older copy\n", encoding="utf-8")
    done = run(SCRIPTS / "klexikon_files.py", archive, tmp_path / "data", "--md5", md5(listing.encode()))
    assert done.returncode == 0, done.stderr
    written = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert written == copied
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["klexikon-validation"]


# -- DEplain-web (the package's convert-deplain, and the user's project's data-sets) ------------

PLAN_HEADER = [
    "original",
    "simplification",
    "original_id",
    "simplification_id",
    "pair_id",
    "corpus",
    "license",
    "alignment",
]


def plan_csv(pair: str, corpus: str, rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PLAN_HEADER)
    for original, simple, oid, sid, label in rows:
        writer.writerow([original, simple, oid, sid, pair, corpus, "CC BY 4.0", label])
    return out.getvalue()


# Plan 7: a title, a 1:2 row whose simple text ("Rut sagt: Du möchtest es? Gut. Ich werde es machen.") holds three sentence ends
# for two ids (the document CSV says where it is cut), a row aligned twice in a different order, an
# addition. Plan 12: another corpus. Plan 9: the document CSV does not fit it (left out).
PLAN_7 = plan_csv(
    "7",
    "bible_verified",
    [
        ("Rut und Noomi", "", "7-1-0--1", "7-0-x-x", "deletion"),
        (
            "Noomi fragt, ob Rut geht. Rut sagt, dass sie kommt.",
            "Rut sagt: Du möchtest es? Gut. Ich werde es machen.",
            "7-1-0-0|7-1-0-1",
            "7-0-0-0|7-0-0-1",
            "aligned (2:2)",
        ),
        ("Dann gehen sie nach Betlehem.", "Sie gehen nach Betlehem.", "7-1-1-0", "7-0-1-1", "aligned (1:1)"),
        ("", "Das ist eine Stadt.", "7-1-x-x", "7-0-1-0", "addition"),
    ],
)
PLAN_9 = plan_csv("9", "bible_verified", [("A. B.", "A B.", "9-1-0-0|9-1-0-1", "9-0-0-0", "aligned (2:1)")])
PLAN_12 = plan_csv("12", "apotheken-umschau", [("Eins.", "Eins.", "12-1-0-0", "12-0-0-0", "identical")])
DOCUMENTS = (
    "pair_id,original,simplification\n"
    '7,"Noomi fragt, ob Rut geht.|||Rut sagt, dass sie kommt.|||Dann gehen sie nach Betlehem.",'
    '"Rut sagt: Du möchtest es? Gut.|||Ich werde es machen.|||“|||Das ist eine Stadt.|||Sie gehen nach Betlehem."\n'
    '9,"A.|||B.|||C.","A B."\n'
)
DEPLAIN_OUT = (
    '{"id": "deplain-web-7", "lang": "de", "corpus": "bible_verified", "license": "CC BY 4.0", '
    '"complex": {"paragraphs": [["Rut und Noomi", "Noomi fragt, ob Rut geht.", "Rut sagt, dass sie kommt."], '
    '["Dann gehen sie nach Betlehem."]]}, '
    '"simple": {"paragraphs": [["Rut sagt: Du möchtest es? Gut.", "Ich werde es machen."], ["Das ist eine Stadt.", "Sie gehen nach Betlehem."]]}, '
    '"gold": [[[1, 2], [0, 1]], [[3], [3]]]}\n'
)
DEPLAIN_FILES = {
    "D__Simplification_Plans/DEplain-web/test/plan_doc_7.csv": PLAN_7,
    "D__Simplification_Plans/DEplain-web/test/plan_doc_9.csv": PLAN_9,
    "D__Simplification_Plans/DEplain-web/test/plan_doc_12.csv": PLAN_12,
    "D__Simplification_Plans/DEplain-web/train/plan_doc_8.csv": plan_csv("8", "bible_verified", []),
    "B__Document-level_Corpus/DEplain-web-doc/manual/open/sentence-split/test.csv": DOCUMENTS,
}


def test_convert_deplain_cuts_joined_rows_into_the_documents_sentences(tmp_path, capsys):
    from spacy_simalign.__main__ import main

    raw = extract(make_archive(tmp_path / "deplain.tar.gz", DEPLAIN_FILES), tmp_path / "raw")
    plans = raw / "D__Simplification_Plans" / "DEplain-web" / "test"
    documents = raw / "B__Document-level_Corpus" / "DEplain-web-doc" / "manual" / "open" / "sentence-split" / "test.csv"
    out = tmp_path / "pairs.jsonl"
    args = [str(plans), str(out), "--documents", str(documents), "--corpora", "Alumniportal-2020,bible_verified"]
    assert main(["convert-deplain", *args]) == 0
    assert out.read_text(encoding="utf-8") == DEPLAIN_OUT
    err = capsys.readouterr().err
    assert err == f"left out: {plans / 'plan_doc_9.csv'}: pair 9: 3 sentences in the document CSV for 2 in the plan\n"
    shared_recipe(
        "deplain_to_jsonl.py",
        plans,
        documents,
        tmp_path / "shared.jsonl",
        "--corpora",
        "Alumniportal-2020,bible_verified",
    )
    assert (tmp_path / "shared.jsonl").read_bytes() == DEPLAIN_OUT.encode("utf-8")


def test_convert_deplain_without_the_document_csv_splits_at_sentence_ends(tmp_path):
    """Without the sentences of the document, "Rut sagt: Du möchtest es? Gut. Ich werde es machen." is cut at its strongest end
    that leaves two pieces: a guess, which is why the data recipe reads the document CSV."""
    from spacy_simalign.__main__ import main

    (tmp_path / "plan_doc_7.csv").write_text(PLAN_7, encoding="utf-8")
    assert main(["convert-deplain", str(tmp_path / "plan_doc_7.csv"), str(tmp_path / "out.jsonl")]) == 0
    (pair,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert pair["simple"]["paragraphs"][0] == ["Rut sagt: Du möchtest es?", "Gut. Ich werde es machen."]


def documents_csv(plans: Path, pairs: Path) -> str:
    """A document CSV in DEplain's layout made from the published pairs: each document's sentences in
    id order, titles (sentence -1) left out as DEplain's document files leave them out."""
    import re

    records = {json.loads(line)["id"]: json.loads(line) for line in pairs.read_text(encoding="utf-8").splitlines()}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["pair_id", "original", "simplification"])
    for plan in sorted(plans.glob("plan_doc_*.csv")):
        rows = list(csv.DictReader(plan.read_text(encoding="utf-8").splitlines()))
        record, cells = records["deplain-web-" + rows[0]["pair_id"]], []
        for column, side in (("original_id", "complex"), ("simplification_id", "simple")):
            ids = {i for r in rows for i in r[column].split("|") if i and not i.endswith("x-x")}
            ids = sorted(ids, key=lambda i: tuple(map(int, re.match(r".*-(\d+)-(-?\d+)$", i).groups())))
            texts = [t for para in record[side]["paragraphs"] for t in para]
            cells.append("|||".join(t for i, t in zip(ids, texts) if not i.endswith("--1")))
        writer.writerow([rows[0]["pair_id"], *cells])
    return out.getvalue()


def test_convert_deplain_gives_the_published_pairs_from_the_82_plans(tmp_path, shared_data, capsys):
    """The 82 real plans, with their documents' sentences in DEplain's document CSV layout, convert to the
    published pairs.jsonl byte for byte (the checksum data-sets keeps): every n:m row is cut where the
    document cuts it, beads in row order. The same plans without the document CSV differ (split guesses)."""
    from spacy_simalign.__main__ import main

    plans, pairs = shared_data("deplain-web-dev/plans"), shared_data("deplain-web-dev/pairs.jsonl")
    (tmp_path / "test.csv").write_text(documents_csv(plans, pairs), encoding="utf-8")
    args = ["--documents", str(tmp_path / "test.csv"), "--corpora", "Alumniportal-2020,bible_verified"]
    assert main(["convert-deplain", str(plans), str(tmp_path / "out.jsonl"), *args]) == 0
    assert md5((tmp_path / "out.jsonl").read_bytes()) == "67047511c55215a4e2106b831f8935d8"
    assert main(["convert-deplain", str(plans), str(tmp_path / "guessed.jsonl")]) == 0
    assert md5((tmp_path / "guessed.jsonl").read_bytes()) != "67047511c55215a4e2106b831f8935d8"
    assert "82 documents written" in capsys.readouterr().out


def test_data_deplain_rebuilds_the_pairs_and_their_plans_from_the_deplain_archive(tmp_path):
    archive = make_archive(tmp_path / "deplain.tar.gz", DEPLAIN_FILES)
    done = run(
        USER_PROJECT / "data_sets.py", "deplain-web-dev", archive, tmp_path / "data", "--md5", md5(DEPLAIN_OUT.encode())
    )
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "data" / "deplain-web-dev"
    assert (folder / "pairs.jsonl").read_text(encoding="utf-8") == DEPLAIN_OUT
    assert [p.name for p in (folder / "plans").iterdir()] == ["plan_doc_7.csv"]
    plans = f"{archive}:D__Simplification_Plans/DEplain-web/test"
    assert done.stderr.startswith(f"left out: {plans}/plan_doc_9.csv: pair 9: 3 sentences in the document CSV")
    assert (folder / "plans" / "plan_doc_7.csv").read_text(encoding="utf-8") == PLAN_7


# -- Amsterdam and Wiki-Manual (the user's project) ------------------------------------------------

AMSTERDAM_CSV = "Document ID,Complex,Simple\n1,De gemeente verleent een vergunning.,U krijgt een vergunning.\n"


def test_data_amsterdam_copies_the_csv_from_its_archive(tmp_path):
    files = {"complex-simple-sentences/complex-simple-v1-anonymized.csv": AMSTERDAM_CSV, "README.md": "x\n"}
    archive = make_archive(tmp_path / "amsterdam.tar.gz", files)
    done = run(
        USER_PROJECT / "data_sets.py",
        "amsterdam-municipal-nl",
        archive,
        tmp_path / "data",
        "--md5",
        md5(AMSTERDAM_CSV.encode()),
    )
    assert done.returncode == 0, done.stderr
    out = tmp_path / "data" / "amsterdam-municipal-nl" / "complex-simple-v1-anonymized.csv"
    assert out.read_text(encoding="utf-8") == AMSTERDAM_CSV


WIKIMANUAL_CSV = (
    "alignment;reg_sent;sim_sent\n"
    "\"(['7_1-1-1-0'], [])\";Nobody remembers it.;\n"
    "\"(['7_1-1-0-0', '7_1-1-0-1'], ['7_1-0-0-0'])\";Dr. Ann Lee founded the town in 1850. It grew fast.;"
    "Ann Lee founded the fast-growing town.\n"
    "\"([], ['7_1-0-1-1'])\";;It is old.\n"
    "\"(['7_1-1-1-1'], ['7_1-0-1-0'])\";The river floods.;The river floods.\n"
    "\"(['9_2-1-0-0'], ['9_2-0-0-0', '9_2-0-0-1'])\";A sentence.;one piece only\n"
)
WIKIMANUAL_OUT = (
    '{"id": "wikimanual-7_1", "lang": "en", "lang_simple": "en", '
    '"complex": {"paragraphs": [["Dr. Ann Lee founded the town in 1850.", "It grew fast."], '
    '["Nobody remembers it.", "The river floods."]]}, '
    '"simple": {"paragraphs": [["Ann Lee founded the fast-growing town."], ["The river floods.", "It is old."]]}, '
    '"gold": [[[0, 1], [0]], [[3], [1]]]}\n'
)


def test_wikimanual_convert_gives_the_shared_recipes_bytes(tmp_path):
    (tmp_path / "dev.csv").write_text(WIKIMANUAL_CSV, encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    done = run(
        USER_PROJECT / "wikimanual_pairs.py", out, "--csv", tmp_path / "dev.csv", "--md5", md5(WIKIMANUAL_OUT.encode())
    )
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == WIKIMANUAL_OUT
    shared_recipe("wikimanual_to_jsonl.py", tmp_path / "dev.csv", tmp_path / "shared.jsonl")
    assert (tmp_path / "shared.jsonl").read_bytes() == WIKIMANUAL_OUT.encode("utf-8")


# -- a checksum that differs writes nothing -----------------------------------------------------

WRONG = "0" * 32
CASES = {
    "textberg": (SCRIPTS / "textberg_pairs.py", [], TEXTBERG),
    "sgc": (SCRIPTS / "sgc_pairs.py", [], SGC),
    "ntrex": (SCRIPTS / "ntrex_pairs.py", None, NTREX),
    "klexikon": (SCRIPTS / "klexikon_files.py", [], KLEXIKON),
    "deplain": (
        USER_PROJECT / "data_sets.py",
        ["deplain-web-dev"],
        {k: v for k, v in DEPLAIN_FILES.items() if not k.endswith("plan_doc_9.csv")},  # nothing left out
    ),
    "amsterdam": (
        USER_PROJECT / "data_sets.py",
        ["amsterdam-municipal-nl"],
        {"x/complex-simple-v1-anonymized.csv": "a\n"},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_wrong_checksum_writes_nothing_and_says_so_in_one_line(tmp_path, name):
    script, before, files = CASES[name]
    archive = make_archive(tmp_path / "upstream.tar.gz", files)
    checksums = [f"--md5={pair}={WRONG}" for pair in NTREX_PAIRS] if before is None else ["--md5", WRONG]
    done = run(script, *(before or []), archive, tmp_path / "data", *checksums)
    assert done.returncode == 1
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert f"not {WRONG}: nothing written" in done.stderr
    assert not (tmp_path / "data").exists()


def test_transread_wrong_checksum_writes_nothing(tmp_path):
    files = {}
    for book in ("Emma", "JaneEyre", "TheLastOfTheMohicans"):
        files.update(book_files(book, 4))
    archive = make_archive(tmp_path / "transread.tar.gz", files)
    done = run(SCRIPTS / "transread_pairs.py", archive, tmp_path / "data", "--md5", WRONG)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "nothing written" in done.stderr
    assert not (tmp_path / "data").exists()


def test_a_missing_archive_is_one_line_naming_the_assets_command(tmp_path):
    done = run(SCRIPTS / "sgc_pairs.py", tmp_path / "absent.tar.gz", tmp_path / "data", "--md5", WRONG)
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"error: {tmp_path / 'absent.tar.gz'}: cannot read the archive")
    assert "spacy project assets" in done.stderr
