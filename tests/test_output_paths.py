"""Every command checks its output paths before any work. An output
that is one of its inputs (the same path, a symbolic link, a hard link) or another of its
outputs is refused with exit status 2 and the input left byte for byte; an output that is a
folder, or in a folder that does not exist, is refused before aligning starts, so nothing
(no OUTPUT.partial) is left behind. Every file of an input folder read as documents is an input,
and an output may not be a new file there either. Nothing is written into the installed package."""

import importlib
import json
import os
import pkgutil
import shutil
from pathlib import Path

import pytest
from conftest import DEPLAIN_PAIRS

import spacy_simalign
from spacy_simalign import commands
from spacy_simalign.__main__ import main
from spacy_simalign.core.output_paths import Paths, check_paths, same_file

READ_ONLY_COMMANDS = {"demo", "init-config"}


@pytest.fixture()
def files(tmp_path):
    """Small real inputs of every kind the commands read."""
    lines = DEPLAIN_PAIRS.read_bytes().splitlines(keepends=True)[:2]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_bytes(b"".join(lines))
    objs = [json.loads(line) for line in lines]
    predicted = tmp_path / "predicted.jsonl"
    predicted.write_text(
        "".join(
            json.dumps({"id": o["id"], "alignments": [{"complex": c, "simple": s, "score": 1.0} for c, s in o["gold"]]})
            + "\n"
            for o in objs
        ),
        encoding="utf-8",
    )
    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "a", "lang": "de", "text": "Ein Text."}) + "\n", encoding="utf-8")
    rows = tmp_path / "rows.csv"
    rows.write_text("Document ID,Complex,Simple\n1,Ein Satz.,Ein Satz.\n", encoding="utf-8")
    text = tmp_path / "texts.txt"
    text.write_text("Herr Müller wohnt in Berlin.\n", encoding="utf-8")
    plans = tmp_path / "plans"
    plans.mkdir()
    plan = plans / "plan_doc_1.csv"
    plan.write_text("a,b\n", encoding="utf-8")
    return {
        "pairs": pairs,
        "predicted": predicted,
        "docs": docs,
        "rows": rows,
        "text": text,
        "plans": plans,
        "plan": plan,
    }


def snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# command line with {name} placeholders (files of the fixture), and the input the output names
SAME_AS_INPUT = {
    "align": (["align", "{pairs}", "{pairs}", "--method", "tfidf"], "pairs"),
    "align-partial-file": (None, "pairs"),  # OUTPUT.partial would be the input: set up below
    "evaluate": (["evaluate", "{pairs}", "{predicted}", "--output", "{pairs}"], "pairs"),
    "evaluate-predicted": (["evaluate", "{pairs}", "{predicted}", "--output", "{predicted}"], "predicted"),
    "match-docs": (["match-docs", "{docs}", "{docs}", "{docs}"], "docs"),
    "align-xling": (["align-xling", "{pairs}", "{pairs}"], "pairs"),
    "align-xling-dropped": (["align-xling", "{pairs}", "{tmp}/out.jsonl", "--dropped", "{pairs}"], "pairs"),
    "render": (["render", "{pairs}", "{pairs}"], "pairs"),
    "render-alignments": (["render", "{pairs}", "{predicted}", "{predicted}"], "predicted"),
    "stats-per-pair": (["stats", "{predicted}", "--per-pair", "{predicted}"], "predicted"),
    "stats-histogram": (["stats", "{predicted}", "--histogram", "{predicted}"], "predicted"),
    "amsterdam": (["amsterdam", "{pairs}", "{tmp}"], "pairs"),  # writes {tmp}/pairs.jsonl
    "export": (["export", "{plans}", "--rows", "{plan}", "--formats", "csv"], "plan"),  # plans/pairs.csv, below
    "anonymise": (["anonymise", "{text}", "{text}", "--lang", "de"], "text"),
    "convert-deplain": (["convert-deplain", "{plans}", "{plan}"], "plan"),
    "review": (["review", "{pairs}", "{pairs}", "--port", "0"], "pairs"),  # the alignments file is the pairs file
    "calibrate-docs": (
        ["calibrate-docs", "{docs}", "{docs}", "{predicted}", "--output-config", "{predicted}"],
        "predicted",
    ),
}


def fill(argv, files, tmp_path):
    names = {k: str(v) for k, v in files.items()}
    names["tmp"] = str(tmp_path)
    return [a.format(**names) for a in argv]


@pytest.mark.parametrize("case", sorted(SAME_AS_INPUT))
def test_output_equal_to_an_input_is_refused_and_the_input_kept(tmp_path, files, capsys, case):
    argv, _ = SAME_AS_INPUT[case]
    if case == "align-partial-file":
        files["pairs"] = files["pairs"].rename(tmp_path / "pairs.partial")
        argv = ["align", "{pairs}", str(tmp_path / "pairs"), "--method", "tfidf"]
    if case == "export":
        (files["plans"] / "pairs.csv").write_bytes(files["rows"].read_bytes())
        files["plan"] = files["plans"] / "pairs.csv"
    before = snapshot(tmp_path)
    assert main(fill(argv, files, tmp_path)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: "), err
    assert "would overwrite" in err, err
    assert snapshot(tmp_path) == before, "nothing written, the input untouched"


@pytest.mark.parametrize("link", ["symlink", "hardlink", "dotted"])
def test_links_to_the_input_are_the_input(tmp_path, files, capsys, link):
    pairs = files["pairs"]
    out = tmp_path / "out.jsonl"
    if link == "symlink":
        out.symlink_to(pairs.name)
    elif link == "hardlink":
        os.link(pairs, out)
    else:
        out = tmp_path / "sub" / ".." / "pairs.jsonl"
        (tmp_path / "sub").mkdir()
    before = pairs.read_bytes()
    assert main(["align", str(pairs), str(out), "--method", "tfidf"]) == 2
    err = capsys.readouterr().err
    assert f"error: {out}: output would overwrite the input" in err
    assert pairs.read_bytes() == before and not list(tmp_path.glob("*.partial*"))


def test_two_outputs_of_one_command_must_differ(tmp_path, files, capsys):
    out = tmp_path / "out.jsonl"
    assert main(["align-xling", str(files["pairs"]), str(out), "--dropped", str(out)]) == 2
    assert "two outputs are the same file" in capsys.readouterr().err
    assert not out.exists()


def test_every_command_that_writes_declares_its_paths():
    """The check runs in __main__ on what each command declares: a new command that writes
    must declare its paths (or be listed here as writing nothing, or in place by design)."""
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "NAME") and module.NAME not in READ_ONLY_COMMANDS:
            assert hasattr(module, "paths"), f"command {module.NAME} declares no paths(args)"


def test_align_into_an_existing_folder_fails_before_aligning(tmp_path, files, capsys):
    folder = tmp_path / "results"
    folder.mkdir()
    assert main(["align", str(files["pairs"]), str(folder), "--method", "tfidf"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: {folder}: output path is a folder, not a file"
    assert not list(tmp_path.glob("results.partial*")) and list(folder.iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["align", "{pairs}", "{tmp}/missing/out.jsonl", "--method", "tfidf"], "output folder does not exist"),
        (["evaluate", "{pairs}", "{predicted}", "--output", "{plans}"], "output path is a folder"),
        (["stats", "{predicted}", "--per-pair", "{tmp}/no/such.jsonl"], "output folder does not exist"),
        (
            ["align-xling", "{pairs}", "{tmp}/out.jsonl", "--dropped", "{tmp}/missing/dropped.jsonl"],
            "output folder does not exist",
        ),
        (["export", "{rows}", "--rows", "{rows}"], "output folder is a file"),
        (["klexikon", "{plans}", "{text}"], "output folder is a file"),
        (["render", "{pairs}", "{plans}"], "output path is a folder"),
    ],
)
def test_unwritable_outputs_are_refused_before_any_work(tmp_path, files, capsys, argv, message):
    before = snapshot(tmp_path)
    assert main(fill(argv, files, tmp_path)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write in any folder")
def test_a_folder_without_write_permission_is_refused(tmp_path, files):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    with pytest.raises(ValueError, match="permission denied"):
        check_paths(Paths([str(files["pairs"])], [str(folder / "out.jsonl")]))


def test_a_device_is_not_an_output():
    with pytest.raises(ValueError, match="not a regular file"):
        check_paths(Paths([], ["/dev/null"]))


def test_same_file_sees_through_links(tmp_path):
    a = tmp_path / "a"
    a.write_text("x")
    os.link(a, tmp_path / "b")
    (tmp_path / "c").symlink_to(a)
    assert same_file(str(a), str(tmp_path / "b")) and same_file(str(a), str(tmp_path / "c"))
    assert not same_file(str(a), str(tmp_path / "d"))


def test_an_output_that_is_a_symlink_is_written_through(tmp_path, files):
    real = tmp_path / "results" / "scores.json"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "scores.json"
    link.symlink_to(real)
    assert main(["evaluate", str(files["pairs"]), str(files["predicted"]), "--output", str(link)]) == 0
    assert link.is_symlink() and json.loads(real.read_text())["link"]["f"] == 1.0


def test_align_into_a_symlinked_output_writes_through_the_link(tmp_path, files, capsys):
    """`align in.jsonl link.jsonl` writes the link's target and keeps the link: replacing the link
    by a file would leave the target stale. The partial files lie beside the target, which the
    finished file replaces, so --resume through the link finds the run."""
    real = tmp_path / "real" / "out.jsonl"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    argv = ["align", str(files["pairs"]), str(link), "--method", "tfidf"]
    assert main(argv) == 0, capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == str(real)
    lines = real.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in lines] == [json.loads(p)["id"] for p in files["pairs"].open()]
    assert sorted(p.name for p in real.parent.iterdir()) == ["out.jsonl"]
    assert main([*argv, "--resume"]) == 0
    assert "is complete" in capsys.readouterr().err


@pytest.fixture()
def folders(tmp_path):
    """Two input folders of one document each (c/a.txt, s/a.txt), and a file outside them that
    s/b.txt links to."""
    for side in ("c", "s"):
        (tmp_path / side).mkdir()
        (tmp_path / side / "a.txt").write_text("Ein Satz. Noch ein Satz.\n", encoding="utf-8")
    (tmp_path / "elsewhere.txt").write_text("Ein Satz.\n", encoding="utf-8")
    (tmp_path / "s" / "b.txt").symlink_to(tmp_path / "elsewhere.txt")
    return tmp_path


# output (made by the set-up, relative to the fixture's folder) -> the input file it would replace
FOLDER_FILE_OUTPUTS = {
    "complex-file": (lambda f: "c/a.txt", "the input"),
    "simple-file": (lambda f: "s/a.txt", "the input"),
    "symlink-to-a-file": (
        lambda f: (f / "link.jsonl").symlink_to(f / "c" / "a.txt") or "link.jsonl",
        "the input c/a.txt",
    ),
    "hardlink-to-a-file": (lambda f: os.link(f / "s" / "a.txt", f / "hard.jsonl") or "hard.jsonl", "the input s/a.txt"),
    "target-of-a-linked-file": (lambda f: "elsewhere.txt", "the input s/b.txt"),
}


@pytest.mark.parametrize("command", ["pairs", "align"])
@pytest.mark.parametrize("case", sorted(FOLDER_FILE_OUTPUTS))
def test_every_file_of_the_input_folders_is_an_input(folders, capsys, monkeypatch, command, case):
    make, replaced = FOLDER_FILE_OUTPUTS[case]
    monkeypatch.chdir(folders)
    out = make(folders)
    before = snapshot(folders)
    method = ["--method", "tfidf"] if command == "align" else []
    assert main([command, "c", "s", out, "--lang", "de", *method]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {out}: output would overwrite {replaced}: choose another output path (nothing was written)"
    assert snapshot(folders) == before


@pytest.mark.parametrize(
    "argv, folder",
    [
        (["pairs", "c", "s", "c/new.jsonl", "--lang", "de"], "c"),
        (["align", "c", "s", "s/new.jsonl", "--lang", "de", "--method", "tfidf"], "s"),
        (["align", "c", "s", "alias/new.jsonl", "--lang", "de", "--method", "tfidf"], "c"),  # alias -> c
        (["align", "c", "s", "new-link.jsonl", "--lang", "de", "--method", "tfidf"], "s"),  # -> s/new.jsonl
        (["klexikon", ".", "wiki"], "./wiki"),
    ],
)
def test_a_new_output_in_an_input_folder_is_refused(folders, capsys, monkeypatch, argv, folder):
    """A file written there would be read as one more document by the next run."""
    monkeypatch.chdir(folders)
    (folders / "alias").symlink_to(folders / "c")
    (folders / "new-link.jsonl").symlink_to(folders / "s" / "new.jsonl")
    for side in ("wiki", "klexikon"):
        (folders / side).mkdir()
        (folders / side / "Berlin.txt").write_text("Berlin ist eine Stadt.\n", encoding="utf-8")
    before = snapshot(folders)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    out = argv[3] if argv[0] != "klexikon" else "wiki/train.jsonl"
    assert err.startswith(f"error: {out}: output is in the input folder {folder}, whose files are all read"), err
    assert len(err.splitlines()) == 1 and snapshot(folders) == before


def test_an_output_in_a_subfolder_of_an_input_folder_is_written(folders, capsys, monkeypatch):
    """Subfolders are not read (their files are no documents of the folder): writing there is safe."""
    monkeypatch.chdir(folders)
    (folders / "c" / "out").mkdir()
    assert main(["pairs", "c", "s", "c/out/pairs.jsonl", "--lang", "de"]) == 0, capsys.readouterr().err
    assert [json.loads(line)["id"] for line in (folders / "c" / "out" / "pairs.jsonl").open()] == ["a"]


PACKAGE_DIR = Path(spacy_simalign.__file__).resolve().parent


def package_files():
    """The installed package's files (bytecode caches aside), relative path -> bytes."""
    return {
        p.relative_to(PACKAGE_DIR): p.read_bytes()
        for p in sorted(PACKAGE_DIR.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


@pytest.fixture()
def package_kept():
    """The package's files before the test, put back after it whatever the test did (a guard that
    failed must not leave the install changed for the tests after it), then compared byte for byte."""
    before = package_files()
    folders = {p for p in PACKAGE_DIR.rglob("*") if p.is_dir()}
    yield
    after = package_files()
    for rel in after.keys() - before.keys():
        (PACKAGE_DIR / rel).unlink()
    for rel, data in before.items():
        if after.get(rel) != data:
            (PACKAGE_DIR / rel).parent.mkdir(parents=True, exist_ok=True)
            (PACKAGE_DIR / rel).write_bytes(data)
    for folder in sorted({p for p in PACKAGE_DIR.rglob("*") if p.is_dir()} - folders, reverse=True):
        shutil.rmtree(folder, ignore_errors=True)
    assert after == before, "the package's files changed"


# command line with {pkg} (the package's folder), {link} (a symbolic link to its weights/crf) and
# {linked_pkg} (a link to the package's folder); each run would fail on an input that does not exist
# before it writes anything ({missing}, a --background file), so a guard that let one through does not
# get to write or train; the fixture restores the package anyway
INTO_THE_PACKAGE = {
    "adapt-weights": (["adapt", "{pairs}", "{pkg}/weights/crf", "--background", "{tmp}/none.jsonl"], "folder"),
    "adapt-link-to-weights": (["adapt", "{pairs}", "{link}", "--background", "{tmp}/none.jsonl"], "folder"),
    "adapt-wide": (["adapt", "{pairs}", "{pkg}/weights/crf/wide", "--background", "{tmp}/none.jsonl"], "folder"),
    "adapt-new-folder": (["adapt", "{pairs}", "{linked_pkg}/mine", "--background", "{tmp}/none.jsonl"], "folder"),
    "adapt-pipeline": (
        ["adapt", "{pairs}", "{tmp}/out", "--pipeline", "{pkg}/weights", "--overwrite", "--background", "{tmp}/none"],
        "folder",
    ),
    "adapt-pipeline-link": (
        ["adapt", "{pairs}", "{tmp}/out", "--pipeline", "{link}", "--overwrite", "--background", "{tmp}/none"],
        "folder",
    ),
    "align": (["align", "{missing}", "{pkg}/resources/out.jsonl", "--method", "tfidf"], "file"),
    "align-link": (["align", "{missing}", "{linked_pkg}/templates/out.jsonl", "--method", "tfidf"], "file"),
    "align-replacing-a-package-file": (["align", "{missing}", "{pkg}/__init__.py", "--method", "tfidf"], "file"),
    "evaluate": (["evaluate", "{pairs}", "{missing}", "--output", "{link}/config.json"], "file"),
    "export": (["export", "{pkg}/resources", "--rows", "{missing}", "--overwrite"], "folder"),
    "klexikon": (["klexikon", "{plans}", "{pkg}/weights", "--overwrite"], "folder"),
}


@pytest.mark.parametrize("case", sorted(INTO_THE_PACKAGE))
def test_no_command_writes_into_the_installed_package(tmp_path, files, capsys, package_kept, case):
    """The package's files are inputs of every run: an output or output folder in the package's
    folder, named directly or through a symbolic link, is refused in one line before any work,
    even with --overwrite."""
    argv, kind = INTO_THE_PACKAGE[case]
    (tmp_path / "link").symlink_to(PACKAGE_DIR / "weights" / "crf")
    (tmp_path / "linked_pkg").symlink_to(PACKAGE_DIR)
    names = {k: str(v) for k, v in files.items()}
    names.update(pkg=str(PACKAGE_DIR), link=str(tmp_path / "link"), linked_pkg=str(tmp_path / "linked_pkg"))
    names.update(tmp=str(tmp_path), missing=str(tmp_path / "missing.jsonl"))
    argv = [a.format(**names) for a in argv]
    before = snapshot(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    what = "output folder" if kind == "folder" else "output"
    assert len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and f": {what} is inside the installed spacy_simalign package" in err, err
    assert snapshot(tmp_path) == before and not (tmp_path / "out").exists()


def test_the_library_writes_no_alignment_into_the_package(files, package_kept):
    """engines.align_file checks its paths as the command line does."""
    from spacy_simalign.aligners.methods import method_config
    from spacy_simalign.engines.align_file import align_file
    from spacy_simalign.engines.job import AlignJob

    out = PACKAGE_DIR / "resources" / "aligned.jsonl"
    with pytest.raises(ValueError, match="inside the installed spacy_simalign package"):
        align_file(str(files["pairs"]) + ".missing", str(out), AlignJob(method_config("tfidf").to_str()))
    assert not out.exists()


def test_outputs_beside_the_package_are_not_in_it(tmp_path):
    """Only the package's own folder is guarded: a sibling whose name starts with the package's is not in it."""
    from spacy_simalign.core.output_paths import inside

    assert inside(str(PACKAGE_DIR / "weights" / "new"), str(PACKAGE_DIR))
    assert not inside(str(PACKAGE_DIR) + "-mine/out.jsonl", str(PACKAGE_DIR))
    assert not inside(str(PACKAGE_DIR.parent), str(PACKAGE_DIR))
    check_paths(Paths([], [str(tmp_path / "out.jsonl")], [str(tmp_path)]))
