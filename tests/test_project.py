"""The three spaCy projects: the user's (project.yml at the root, its scripts in project/), whose `all`
workflow runs here as CI runs it, with weasel's project_run in a copy and the CI --vars (convert a few
DEplain documents, spacy train for two epochs, evaluate, assemble the de and en pipelines, build the de
sdist and install it into a fresh environment); the benchmarks
(benchmarks/project.yml, benchmarks/scripts/, the figures of the README and docs/ and the data
recipes) and the lab (lab/project.yml, lab/scripts/), which share benchmarks/helpers/. All three are
checked for being valid projects whose commands name the scripts they run and the modules those
import; the data recipes are run in test_recipes.py."""

import json
import shutil
import sys
from pathlib import Path

import pytest
import spacy
from weasel.cli.run import project_run

import spacy_simalign
from spacy_simalign.pipeline import doc_pair as pair

ROOT = Path(__file__).resolve().parent.parent
PROJECT_FILES = ("project.yml", "configs", "assets", "project")


def copy_project(folder: Path) -> None:
    """The user's project's files (PROJECT_FILES) copied into `folder`, as a user's clone holds them."""
    for name in PROJECT_FILES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, folder / name, ignore=shutil.ignore_patterns("__pycache__", "upstream"))
        else:
            shutil.copy(src, folder / name)


@pytest.fixture(scope="module")
def ci_project(tmp_path_factory, shared_data):
    """The project's `all` run in a copy with the CI vars, its CRF trained as a pair: the wide CRF with 2
    sgc-dev documents (vars.wide_gold; sgc-dev may not be copied into assets/, so the project's default
    is one CRF)."""
    folder = tmp_path_factory.mktemp("project")
    copy_project(folder)
    sgc = shared_data("sgc-dev/pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (folder / "wide-gold.jsonl").write_text("\n".join(sgc[:2]) + "\n", encoding="utf-8")
    project_run(folder, "all", capture=True, overrides=CI_OVERRIDES)
    return folder


# the CI run: its own folders (vars.run), ten documents, two epochs, de and en, the sdist only
CI_OVERRIDES = {
    "vars.run": "ci",
    "vars.limit": 10,
    "vars.epochs": 2,
    "vars.eval_frequency": 5,
    "vars.combination_epochs": 2,
    "vars.langs": "de,en",
    "vars.build": "sdist",
    "vars.wide_gold": "wide-gold.jsonl",
}


@pytest.mark.slow
def test_ci_workflow_trains_evaluates_and_packages(ci_project):
    split = json.loads((ci_project / "corpus" / "ci" / "split.json").read_text(encoding="utf-8"))
    assert len(split["train"]) + len(split["dev"]) + len(split["test"]) == 10
    assert not set(split["train"]) & set(split["test"]) and not set(split["dev"]) & set(split["test"])
    metrics = json.loads((ci_project / "metrics" / "ci" / "test.json").read_text(encoding="utf-8"))
    assert metrics["docs"] == len(split["test"])
    for name in ("link", "bead_text", "paragraph"):
        assert set(metrics[name]) == {"p", "r", "f"} and all(0.0 <= v <= 1.0 for v in metrics[name].values())
    assert metrics["link"]["f"] > 0.3  # two epochs on seven documents already align most links
    aligner = ci_project / "training" / "ci" / "model-best" / "sentence_aligner" / "aligner"
    assert (aligner / "model.npz").is_file() and (aligner / "wide" / "model.npz").is_file()
    sdist = ci_project / "packages" / "ci" / "de_simalign_web-0.1.0" / "dist" / "de_simalign_web-0.1.0.tar.gz"
    assert sdist.is_file()
    packaged = json.loads(
        (ci_project / "packages" / "ci" / "de_simalign_web-0.1.0" / "meta.json").read_text(encoding="utf-8")
    )
    assert any(req.startswith("spacy-simalign") for req in packaged["requirements"])
    assert (ci_project / "packages" / "ci" / f"spacy_simalign-{spacy_simalign.__version__}-py3-none-any.whl").is_file()


@pytest.mark.slow
def test_ci_pipelines_align_in_their_own_language(ci_project):
    """The en pipeline carries the same weights as de behind English tokenization and segmentation."""
    de = spacy.load(ci_project / "packages" / "ci" / "pipelines" / "de")
    en = spacy.load(ci_project / "packages" / "ci" / "pipelines" / "en")
    assert de.lang == "de" and en.lang == "en" and en.pipe_names == de.pipe_names
    assert all(nlp.get_pipe("sentence_aligner").aligner.wide is not None for nlp in (de, en))  # the pair is packaged
    doc = en(
        pair.make_pair(
            en,
            "Mr. Smith lives in London. He works at the bank near the river.",
            "Mr. Smith lives in London. He works at a bank.",
        )
    )
    assert len(pair.side_of(doc, "complex")) == 2  # "Mr." does not end a sentence in English
    assert ((0,), (0,)) in {(b.complex, b.simple) for b in doc._.beads}


@pytest.mark.slow
def test_ci_rerun_skips_up_to_date_steps(ci_project):
    model = ci_project / "training" / "ci" / "model-best" / "sentence_aligner" / "aligner" / "model.npz"
    before = model.stat().st_mtime_ns
    project_run(ci_project, "all", capture=True, overrides=CI_OVERRIDES)
    assert model.stat().st_mtime_ns == before


@pytest.mark.slow
def test_ci_package_installs_into_a_fresh_environment_and_aligns(ci_project):
    """The package-check step (project/package_check.py) on what the CI run built: the de sdist and
    the spacy-simalign wheel pip-installed into a fresh virtual environment without torch, where the
    pipeline loads and aligns a test pair (pip needs the package index or its cache)."""
    report_path = ci_project / "metrics" / "ci" / "package_check.json"
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["ok"] and report["artifact"] == "de_simalign_web-0.1.0.tar.gz"
    assert report["check"]["plugin"].startswith("venv") and report["check"]["smoke"] == {}  # en is not packaged
    installed = {line.split("==")[0].split(" @ ")[0] for line in report["installed"]}
    assert {"spacy", "spacy-simalign", "de-simalign-web"} <= {name.lower().replace("_", "-") for name in installed}
    assert "torch" not in installed


@pytest.mark.slow
def test_the_transformer_workflow_trains_evaluates_and_packages_the_transformer_with_the_aligner(tmp_path):
    """The `transformer` workflow's steps up to `package` in a copy, on a tiny BERT of random weights
    (test_transformer_route.py's writer) for one epoch: the best model lands in
    training/transformer/model-best, and the package holds the transformer and the aligner, for its
    own language only, its meta naming the base model's licence and requiring torch and
    spacy-transformers (package-check, a pip install of torch, is left out here)."""
    import importlib.util

    from weasel.util import load_project_config

    pytest.importorskip("spacy_transformers")
    spec = importlib.util.spec_from_file_location("transformer_route", ROOT / "tests" / "test_transformer_route.py")
    route = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(route)
    copy_project(tmp_path)
    route.tiny_bert(tmp_path / "models" / "tiny")
    overrides = {
        "vars.run": "transformer",
        "vars.limit": 8,
        "vars.transformer_epochs": 1,
        "vars.transformer_eval_frequency": 2,
        "vars.combination_epochs": 1,
        "vars.transformer_model": "models/tiny",
        "vars.transformer_license": "Apache-2.0",
        "vars.build": "wheel",
    }
    workflow = load_project_config(tmp_path)["workflows"]["transformer"]
    assert workflow[-1] == "package-check"
    for step in workflow[:-1]:
        project_run(tmp_path, step, capture=True, overrides=overrides)
    trained = spacy.load(tmp_path / "training" / "transformer" / "model-best")
    assert trained.pipe_names == ["segmenter", "transformer", "sentence_aligner"]
    split = json.loads((tmp_path / "corpus" / "transformer" / "split.json").read_text(encoding="utf-8"))
    metrics = json.loads((tmp_path / "metrics" / "transformer" / "test.json").read_text(encoding="utf-8"))
    assert metrics["docs"] == len(split["test"]) > 0
    packages = tmp_path / "packages" / "transformer"
    assert sorted(p.name for p in (packages / "pipelines").iterdir()) == ["de"]  # not nl, fr, en
    meta = json.loads((packages / "de_simalign_web-0.1.0" / "meta.json").read_text(encoding="utf-8"))
    required = {req.split(">")[0].split("=")[0] for req in meta["requirements"]}
    assert {"torch", "spacy-transformers", "spacy-simalign"} <= required
    assert "Apache-2.0" in meta["license"] and "tiny" in meta["description"]
    assert list((packages / "de_simalign_web-0.1.0" / "dist").glob("*.whl"))
    nlp = spacy.load(packages / "pipelines" / "de")
    doc = nlp(pair.make_pair(nlp, "Der Hund bellt laut. Die Katze schläft.", "Der Hund bellt. Die Katze schläft."))
    assert len(pair.side_of(doc, "complex")) == 2 and doc._.beads is not None


# -- the three projects: every script run by a command that names it, helpers on the command line --

BENCH = ROOT / "benchmarks"
LAB = ROOT / "lab"
HELPERS = BENCH / "helpers"  # the modules that the benchmarks' and the lab's scripts share
SCRIPT_FOLDERS = (ROOT / "project", BENCH / "scripts", HELPERS, LAB / "scripts")

OUTSIDE_WORKFLOWS = {  # commands in no workflow, and why
    ROOT: {
        "train-crf": "the recipe of the shipped weights, run on its own to compare with them",
    },
    BENCH: {
        "bench-peers": "needs .venv-peers, which `make bench-peers` builds before it runs the command",
        "bench-spacy-cli": "needs a second environment without the plugin (vars.bare_python), made by hand",
    },
    LAB: {},
}


def project_commands(folder=ROOT):
    """The commands of folder/project.yml, variables substituted (as weasel runs them)."""
    from weasel.util import load_project_config

    return load_project_config(folder)["commands"]


def scripts_of(command, prefix="project/"):
    """The prefix*.py files that a command's script lines run."""
    return {
        word for line in command["script"] for word in line.split() if word.startswith(prefix) and word.endswith(".py")
    }


def imported(script: Path):
    """The top-level names of the modules that `script` imports."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def local_imports(script: Path, *folders: Path):
    """The modules beside `script`, or in `folders`, that it imports (a script's own folder is first on
    sys.path, then PYTHONPATH's), as paths."""
    found = set()
    for name in imported(script):
        for folder in (script.parent, *folders):
            if (folder / f"{name}.py").is_file():
                found.add(folder / f"{name}.py")
                break
    return found


def run_lines(folder: Path):
    """(command, its PYTHONPATH folder or None, the script it runs) of each line of folder/project.yml
    that runs a Python file: `python FILE ...` or `env PYTHONPATH=DIR python FILE ...`."""
    for command in project_commands(folder):
        for line in command["script"]:
            words = line.split()
            path = None
            if words[0] == "env" and words[1].startswith("PYTHONPATH="):
                path, words = (folder / words[1].split("=", 1)[1]).resolve(), words[2:]
            if words[0] == "python" and words[1].endswith(".py"):
                yield command, path, folder / words[1]


def relative(path: Path, folder: Path) -> str:
    """`path` as a project.yml in `folder` names it (a dep)."""
    import os

    return os.path.relpath(path, folder).replace(os.sep, "/")


@pytest.mark.parametrize("folder", [ROOT, BENCH, LAB], ids=["user", "benchmarks", "lab"])
def test_every_command_runs_scripts_that_its_deps_name_with_their_modules_and_is_in_a_workflow(folder):
    """Each script line runs an existing file that the command's deps name, with every module it imports
    from beside it or from its PYTHONPATH; a script that needs the helpers gets them on the command line
    (`env PYTHONPATH=...`), never by editing sys.path. Each command keeps an output and is in a workflow."""
    from weasel.util import load_project_config

    config = load_project_config(folder)  # validated against weasel's schema
    for command, path, script in run_lines(folder):
        deps = command.get("deps", [])
        assert script.is_file() and relative(script, folder) in deps, f"{command['name']}: {script}"
        modules = local_imports(script, *([path] if path else []))
        for module in modules:
            assert relative(module, folder) in deps, f"{command['name']}: {script.name} imports {module}"
        needed = {m for m in modules for n in local_imports(m, HELPERS) if n.parent == HELPERS} | modules
        if any(m.parent == HELPERS for m in needed):
            assert path == HELPERS, f"{command['name']}: {script.name} needs PYTHONPATH={relative(HELPERS, folder)}"
    commands = config["commands"]
    for command in commands:
        assert command.get("outputs"), f"{command['name']} declares no outputs"
        # a list item `${vars.a}` right before `${vars.b}/...` comes back as one item "a, b/..."
        assert not [dep for dep in command.get("deps", []) if ", " in dep], command["name"]
    in_workflows = {step for steps in config["workflows"].values() for step in steps}
    assert in_workflows <= {c["name"] for c in commands}
    assert {c["name"] for c in commands} - in_workflows == set(OUTSIDE_WORKFLOWS[folder])


def what_a_line_runs(line: str):
    """What a script line runs, without the values it runs it with: the script file, or the module and
    its subcommand with the config it reads (`-m spacy train configs/crf.cfg`)."""
    import shlex

    words = shlex.split(line)[1:]
    if words[0] != "-m":
        return (words[0],)
    return tuple(words[1:3]) + tuple(w for w in words[3:4] if w.endswith(".cfg"))


def test_the_user_project_is_short_and_no_command_is_a_variant_of_another():
    """At most 20 commands, and none runs what another runs (a script, or spacy train on a config) with
    other values: a variant of a job (CI's few documents, an adapted or a transformer pipeline, English
    Wiki-Manual) is that job's command run with --vars, its outputs under a folder of its run."""
    from weasel.util import load_project_config

    commands = load_project_config(ROOT)["commands"]
    assert len(commands) <= 20, [c["name"] for c in commands]
    owner = {}
    for command in commands:
        for line in command["script"]:
            ran = what_a_line_runs(line)
            if ran == ("project/run_name.py",):  # a check before training, not a job
                continue
            assert owner.setdefault(ran, command["name"]) == command["name"], (
                f"{ran} in {owner[ran]} and {command['name']}"
            )
    import srsly

    # each run's outputs are in its own folders; the data sets' in data/, the shipped weights' recipe's in its own
    for command in srsly.read_yaml(ROOT / "project.yml")["commands"]:
        outputs = command["outputs"]
        assert all("/${vars.run}/" in out or out.startswith(("data/", "training/crf-weights/")) for out in outputs), (
            command["name"]
        )


def train_overrides(line: str):
    """The config of a `python -m spacy train CONFIG ...` line and its --section.key overrides."""
    import shlex

    from spacy.cli._util import parse_config_overrides

    words = shlex.split(line)
    config, options = words[4], words[5:]
    pairs = [w for i, w in enumerate(options) if i % 2 == 0]
    assert all(w.startswith("--") for w in pairs), line
    named = dict(zip(pairs, options[1::2]))
    for option in ("--output", "--gpu-id"):
        named.pop(option, None)
    return config, parse_config_overrides([x for pair in named.items() for x in pair])


@pytest.mark.parametrize("workflow", ["all", "transformer"])
def test_the_training_workflows_resolve_their_configs_and_pass_the_model_on(workflow):
    """Each step of `all` and `transformer` runs files that exist, its spacy train line's overrides all
    name settings of its config (spaCy refuses an override of a missing one), and the steps after
    training read the model-best that training writes: training/transformer/model-best for the
    transformer run."""
    from weasel.util import load_project_config

    config = load_project_config(ROOT, overrides={"vars.run": workflow})
    by_name = {c["name"]: c for c in config["commands"]}
    steps = [by_name[name] for name in config["workflows"][workflow]]
    trained = f"training/{workflow}/model-best"
    trains = [c for c in steps if any(line.startswith("python -m spacy train") for line in c["script"])]
    assert len(trains) == 1 and trained in trains[0]["outputs"]
    cfg, overrides = train_overrides(next(line for line in trains[0]["script"] if "spacy train" in line))
    resolved = spacy.util.load_config(ROOT / cfg, overrides=overrides, interpolate=True)
    assert resolved["nlp"]["lang"] == config["vars"]["lang"]
    if workflow == "transformer":
        assert resolved["paths"]["transformer_model"] == config["vars"]["transformer_model"]
        assert "transformer" in resolved["nlp"]["pipeline"]
    for step in steps:
        for line in step["script"]:
            ran = what_a_line_runs(line)
            assert ran[0].startswith(("spacy", "-")) or (ROOT / ran[0]).is_file(), line
    for step in steps[steps.index(trains[0]) + 1 : -1]:
        assert trained in step["deps"], step["name"]


@pytest.mark.parametrize("workflow", ["transformer", "adapt"])
def test_a_workflow_that_trains_its_own_model_refuses_the_main_runs_name(workflow):
    """Every workflow's commands write under training/<vars.run>: the transformer and adapt steps, run
    without a run of their own, would replace the main run's model-best, and refuse in one line."""
    by_name = {c["name"]: c for c in project_commands()}
    step = by_name["train-transformer" if workflow == "transformer" else "adapt-train"]
    guard = step["script"][0].split()
    assert guard[:3] == ["python", "project/run_name.py", "main"]
    run = run_script(*guard[1:])
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == (
        f"error: vars.run: the {workflow} workflow would replace the main run's training/main: name a run of its "
        f"own (--vars.run {workflow}); nothing was written\n"
    )
    assert run_script(guard[1], workflow, *guard[3:]).returncode == 0


def test_a_transformer_pipeline_is_not_packaged_without_its_base_models_licence(tmp_path, capsys):
    """The packaged meta names the transformer's licence, which only the user knows: without
    --model-license (vars.transformer_license) assemble refuses in one line, before loading or writing."""
    (tmp_path / "trained").mkdir()
    (tmp_path / "trained" / "config.cfg").write_text(
        '[nlp]\nlang = "de"\npipeline = ["segmenter","transformer","sentence_aligner"]\n', encoding="utf-8"
    )
    assemble = project_module("assemble")
    assert assemble.main([str(tmp_path / "trained"), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"error: {tmp_path / 'trained'}: a transformer pipeline's meta names its base model's licence: pass --model-license (in the project --vars.transformer_license)\n"
    )
    assert str(tmp_path / "trained") in err and not (tmp_path / "out").exists()


def test_every_script_is_run_by_a_command_imported_by_one_or_a_named_helper():
    """No script is left that nothing runs or imports: project/ (the user's project), benchmarks/scripts
    and benchmarks/helpers (the benchmarks' or the lab's commands), lab/scripts; bench_peers.py's
    drivers, which it starts in .venv-peers, are among bench-peers' deps."""
    used = set()
    for folder in (ROOT, BENCH, LAB):
        for command, path, script in run_lines(folder):
            used |= {script, *local_imports(script, *([path] if path else []))}
            used |= {folder / dep for dep in command["deps"] if dep.endswith(".py")}  # started by the script
    used = {p.resolve() for p in used}
    for scripts in SCRIPT_FOLDERS:
        for path in sorted(scripts.glob("*.py")):
            assert path in used, f"{path} is run or imported by no command"
    peers = next(c for c in project_commands(BENCH) if c["name"] == "bench-peers")["deps"]
    assert {"scripts/peers_bertalign.py", "scripts/peers_vecalign.py", "scripts/peers_table.py"} <= set(peers)


def test_no_script_edits_sys_path_or_imports_a_project_it_may_not():
    """Scripts import the package, the modules beside them and, for the benchmarks and the lab, the
    helpers that their commands put on PYTHONPATH: the user's project imports nothing from benchmarks/
    or lab/, the benchmarks nothing from lab/, and a module name is in one folder only."""
    scripts = [p for folder in SCRIPT_FOLDERS for p in sorted(folder.glob("*.py"))]
    assert [p.name for p in scripts if "sys.path" in p.read_text(encoding="utf-8")] == []
    stems = [p.stem for p in scripts]
    assert {stem for stem in stems if stems.count(stem) > 1} == set(), "a module name in two folders"
    stems_of = {folder: {p.stem for p in folder.glob("*.py")} for folder in SCRIPT_FOLDERS}
    allowed = {
        ROOT / "project": stems_of[ROOT / "project"],
        BENCH / "scripts": stems_of[BENCH / "scripts"] | stems_of[HELPERS],
        HELPERS: stems_of[HELPERS],
        LAB / "scripts": stems_of[LAB / "scripts"] | stems_of[HELPERS],
    }
    every = set(stems)
    for folder in SCRIPT_FOLDERS:
        for path in folder.glob("*.py"):
            assert imported(path) & every <= allowed[folder], path
    for folder, others in ((ROOT, ("benchmarks/", "lab/", "PYTHONPATH")), (BENCH, ("../lab/",))):
        for command in project_commands(folder):
            words = " ".join(command["script"] + command.get("deps", [])).split()
            assert not [w for w in words if w.startswith(others)], command["name"]


def test_the_data_recipes_of_the_benchmarks_import_the_standard_library_only():
    """The benchmarks' `data` workflow runs before anything is installed: its scripts import nothing
    beyond the standard library and the modules beside them; its assets are its own (the user's
    project fetches only the archives of the sets it converts)."""
    from weasel.util import load_project_config

    stdlib = getattr(sys, "stdlib_module_names", None)  # Python 3.10 and later
    if stdlib is None:
        pytest.skip("sys.stdlib_module_names is Python 3.10 and later")
    config = load_project_config(BENCH)
    data = set(config["workflows"]["data"])
    recipes = {script for command, _, script in run_lines(BENCH) if command["name"] in data}
    assert recipes
    for script in recipes:
        for module in {script, *local_imports(script)}:
            assert imported(module) <= stdlib | {p.stem for p in (BENCH / "scripts").glob("*.py")}, module.name
    root_assets = {a["dest"] for a in load_project_config(ROOT)["assets"]}
    assert not root_assets & {a["dest"] for a in config["assets"]}, "an archive fetched by both projects"


def test_no_command_is_in_two_projects():
    names = [c["name"] for folder in (ROOT, BENCH, LAB) for c in project_commands(folder)]
    assert {n for n in names if names.count(n) > 1} == set()


def test_the_generated_project_documents_are_up_to_date(tmp_path):
    """project/README.md, lab/README.md and benchmarks/README.md are what `spacy project document`
    writes for each project.yml (rerun it after editing a project.yml)."""
    readmes = (
        (ROOT, ROOT / "project" / "README.md"),
        (LAB, LAB / "README.md"),
        (BENCH, BENCH / "README.md"),
    )
    for folder, readme in readmes:
        out = tmp_path / (folder.name + ".md")
        run = run_script("-m", "spacy", "project", "document", str(folder), "--output", out)
        assert run.returncode == 0, run.stderr
        assert out.read_text(encoding="utf-8") == readme.read_text(encoding="utf-8"), f"{readme} is out of date"


def test_tests_neither_import_nor_run_project_scripts():
    """Library code that tests need lives in the package; only this file tests the projects themselves,
    and test_recipes.py their data recipes. (Docstrings and comments may name project scripts.)"""
    import ast

    stems = {p.stem for folder in SCRIPT_FOLDERS for p in folder.glob("*.py")}
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.name in (Path(__file__).name, "test_recipes.py"):  # the projects, and their data recipes
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        named = [
            node.lineno
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and (node.value in ("project", "benchmarks", "lab") or node.value.startswith(("project/", "benchmarks/")))
        ]
        assert not named, f"{path.name}:{named} names a project's folder"
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not {m.split(".")[0] for m in modules} & stems, f"{path.name}:{node.lineno}"


def module_of(name: str, *folders: Path):
    """A module of a project, imported as its scripts import it (`folders` first on sys.path)."""
    import importlib

    sys.path[:0] = [str(folder) for folder in folders]
    try:
        return importlib.import_module(name)
    finally:
        del sys.path[: len(folders)]


def project_module(name: str):
    """A module of project/ (the user's project), as its scripts import it."""
    return module_of(name, ROOT / "project")


def bench_module(name: str):
    """A module of benchmarks/scripts or benchmarks/helpers, as the benchmarks' commands import it."""
    return module_of(name, BENCH / "scripts", HELPERS)


OUTPUT_MODULES = [("project", "script_options"), ("benchmarks", "script_output")]


@pytest.mark.parametrize("where, name", OUTPUT_MODULES)
def test_a_script_output_file_holds_what_it_printed_and_only_after_a_successful_run(tmp_path, capsys, where, name):
    """run_main: the `--output FILE` of the table scripts (the user's project's and the benchmarks' and lab's)."""
    import argparse

    output = project_module(name) if where == "project" else bench_module(name)
    add_output_option, run_main = output.add_output_option, output.run_main

    def main(argv):
        parser = argparse.ArgumentParser()
        parser.add_argument("--status", type=int, default=0)
        add_output_option(parser)
        args = parser.parse_args(argv)
        print("| a | table |")
        return args.status

    report = tmp_path / "metrics" / "table.md"
    assert run_main(main, ["--output", str(report)]) == 0
    assert report.read_text(encoding="utf-8") == "| a | table |\n"
    assert capsys.readouterr().out == "| a | table |\n"  # printed as well
    assert run_main(main, ["--status", "3", "--output", str(report)]) == 3
    assert report.read_text(encoding="utf-8") == "| a | table |\n"  # a failed run keeps the old report
    assert run_main(main, []) == 0 and sorted(p.name for p in report.parent.iterdir()) == ["table.md"]


@pytest.mark.parametrize("where, name", OUTPUT_MODULES)
def test_a_script_json_file_is_written_whole_into_a_new_folder(tmp_path, where, name):
    """write_json: every script's `--json FILE` (the folder made; nothing without a path)."""
    write_json = (project_module(name) if where == "project" else bench_module(name)).write_json

    path = tmp_path / "metrics" / "new" / "figures.json"
    write_json(str(path), {"f1": 0.5, "rows": [1, 2]})
    assert json.loads(path.read_text(encoding="utf-8")) == {"f1": 0.5, "rows": [1, 2]}
    assert sorted(p.name for p in path.parent.iterdir()) == ["figures.json"]  # no temporary left
    write_json(None, {"ignored": True})


def test_the_user_project_draws_the_folds_of_the_benchmarks():
    """eval_adapt_folds.py (the user's project) and the benchmarks' CRF evaluations cut the same folds."""
    ours, theirs = project_module("script_options"), bench_module("gold_folds")
    for n, k, seed in ((49, 5, 0), (82, 5, 0), (11, 3, 1)):
        assert ours.folds_of(n, k, seed) == theirs.folds_of(n, k, seed)
    assert ours.setting("top_k=8") == bench_module("script_output").setting("top_k=8") == ("top_k", 8)


def run_script(*args, cwd=ROOT, pythonpath=None):
    """A script run in a fresh process; `pythonpath`: the folder its command puts on PYTHONPATH."""
    import os
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(pythonpath)) if pythonpath else None
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env)


def test_the_plugin_wheel_is_built_beside_the_pipelines_without_build_warnings(tmp_path):
    """The package step builds the spacy-simalign wheel into packages/<run>/ (the install line of
    docs/training.md names it), with every data file and no setuptools "Package would be ignored"
    warning (a pipeline would require a wheel without its weights); a build that warns is refused."""
    import zipfile

    import yaml

    steps = {c["name"]: c["script"] for c in yaml.safe_load((ROOT / "project.yml").read_text())["commands"]}
    assert "python project/plugin_wheel.py packages/${vars.run}" in steps["package"]
    assert any(
        line.startswith("python project/package_check.py packages/${vars.run} ") for line in steps["package-check"]
    )
    result = run_script(ROOT / "project" / "plugin_wheel.py", tmp_path / "packages")
    assert result.returncode == 0, result.stderr
    wheel = tmp_path / "packages" / f"spacy_simalign-{spacy_simalign.__version__}-py3-none-any.whl"
    assert result.stdout.strip() == str(wheel)
    names = set(zipfile.ZipFile(wheel).namelist())
    for data in (
        "weights/crf/model.npz",
        "weights/crf/config.json",
        "weights/crf/wide/model.npz",
        "weights/crf/wide/config.json",
        "templates/review.js",
        "templates/review.html",
        "resources/example-de.jsonl",
        "core/output_paths.py",
        "review/store.py",
    ):
        assert f"spacy_simalign/{data}" in names, data
    install = f"pip install packages/main/{wheel.name} packages/main/de_simalign_web-0.1.0/dist/de_simalign_web-0.1.0-py3-none-any.whl"
    assert install in (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    # the same build from a tree whose setup.cfg leaves the data folders out is refused
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "spacy_simalign", tree / "spacy_simalign", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tree / name)
    (tree / "setup.cfg").write_text((ROOT / "setup.cfg").read_text().replace("find_namespace:", "find:"))
    refused = run_script(ROOT / "project" / "plugin_wheel.py", tmp_path / "refused", "--source", tree)
    assert refused.returncode != 0, refused.stdout
    assert "the spacy-simalign wheel lacks" in refused.stderr and "resources/example-de.jsonl" in refused.stderr
    assert not (tmp_path / "refused").exists() or not list((tmp_path / "refused").iterdir())


def test_package_check_takes_the_plugin_wheel_from_the_packages_folder(tmp_path):
    result = run_script(ROOT / "project" / "package_check.py", tmp_path, "--gold", "x", "--output", tmp_path / "o")
    assert result.returncode != 0
    assert f"no spacy_simalign-{spacy_simalign.__version__} wheel in {tmp_path}: run the package step" in result.stderr


def test_an_adapted_pipeline_names_the_gold_it_was_adapted_on(tmp_path):
    """The adapt workflow packages the shipped weights fine-tuned on the user's gold: the meta must name
    that gold (description, sources, licence) beside DEplain-web, whose terms alone bound the
    unadapted weights; without --adapted-on the meta names DEplain-web alone."""
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter", name="segmenter")
    nlp.add_pipe("simalign_sentence_aligner", name="sentence_aligner")
    nlp.to_disk(tmp_path / "trained")
    gold = "corpus/my-domain/gold.jsonl"
    assemble = project_module("assemble")
    metas = {}
    for label, extra in (("adapted", ["--adapted-on", gold]), ("shipped", [])):
        out = tmp_path / label
        assert assemble.main([str(tmp_path / "trained"), str(out), "--langs", "de", *extra]) == 0
        metas[label] = json.loads((out / "de" / "meta.json").read_text(encoding="utf-8"))
    adapted, shipped = metas["adapted"], metas["shipped"]
    assert f"adapted on {gold}" in adapted["description"] and f"adapted on {gold}" in adapted["license"]
    assert adapted["sources"][0] == shipped["sources"][0] and gold in adapted["sources"][1]
    assert gold not in json.dumps(shipped) and len(shipped["sources"]) == 1


def test_a_pipeline_trained_on_other_gold_names_it_and_its_licence(tmp_path):
    """`package` passes vars.gold: a gold other than DEplain-web dev is named in the meta with its
    licence (vars.gold_license) in place of DEplain-web's; after `adapt` (its weights folder crf/
    beside the pipeline) the meta says the shipped weights were adapted on it, beside DEplain-web."""
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter", name="segmenter")
    nlp.add_pipe("simalign_sentence_aligner", name="sentence_aligner")
    assemble = project_module("assemble")
    metas = {}
    for run, gold in (
        ("main", "assets/deplain-web-dev/pairs.jsonl"),
        ("mine", "my/gold.jsonl"),
        ("adapt", "my/gold.jsonl"),
    ):
        (tmp_path / run).mkdir()
        nlp.to_disk(tmp_path / run / "model-best")
        if run == "adapt":
            (tmp_path / run / "crf").mkdir()
            (tmp_path / run / "crf" / "config.json").write_text("{}", encoding="utf-8")
        args = [str(tmp_path / run / "model-best"), str(tmp_path / run / "out"), "--langs", "de", "--gold", gold]
        assert assemble.main([*args, "--gold-license", "CC0 1.0"]) == 0
        metas[run] = json.loads((tmp_path / run / "out" / "de" / "meta.json").read_text(encoding="utf-8"))
    assert metas["main"]["license"] == assemble.LICENSE and metas["main"]["sources"] == [assemble.SOURCES]
    mine = metas["mine"]
    assert "my/gold.jsonl (CC0 1.0)" in mine["license"] and "CC BY 4.0" not in mine["license"]
    assert mine["sources"] == ["my/gold.jsonl: the gold the weights were trained on (CC0 1.0)"]
    adapted = metas["adapt"]
    assert "adapted on my/gold.jsonl" in adapted["license"] and adapted["sources"][0] == assemble.SOURCES


def test_the_package_check_script_aligns_with_the_package_as_it_is(tmp_path):
    """CHECK, the text that package_check.py runs in the fresh environment, run here on saved de and en
    pipelines (blank + segmenter + the shipped weights) and a DEplain-web dev pair: every module and
    name it imports must exist in the package, and its output must pass the script's own acceptance."""
    import subprocess
    import sys

    check = project_module("package_check")
    for lang in ("de", "en"):
        nlp = spacy.blank(lang)
        nlp.add_pipe("simalign_segmenter", name="segmenter")
        nlp.add_pipe("simalign_sentence_aligner", name="sentence_aligner")
        nlp.to_disk(tmp_path / f"{lang}_simalign_web")
    record = check.pick_pair(ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl")
    (tmp_path / "pair.json").write_text(json.dumps(record), encoding="utf-8")
    (tmp_path / "check.py").write_text(check.CHECK, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "check.py", str(tmp_path / "de_simalign_web"), "pair.json", "en"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert Path(result["plugin"]) == Path(spacy_simalign.__file__)
    assert result["id"] == record["id"] and result["pipeline"] == ["segmenter", "sentence_aligner"]
    assert list(result["smoke"]) == ["en"] and check.aligned_as_expected(result, min_link_f=0.5), result


def test_generated_project_outputs_are_not_versioned():
    """`spacy project run all` writes metrics/*.json and project.lock; neither is tracked (they
    change on every run, and hold a path of the machine)."""
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "metrics", "project.lock"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert tracked == []
    generated = [
        "metrics/main/test.json",
        "metrics/main/test_massalign.json",
        "metrics/main/package_check.json",
        "metrics/ci/test.json",
        "corpus/transformer/train.spacy",
        "training/transformer/model-best/meta.json",
        "project.lock",
        f"packages/spacy_simalign-{spacy_simalign.__version__}-py3-none-any.whl",
        "data/amsterdam-municipal-nl/complex-simple-v1-anonymized.csv",
        "assets/upstream/amsterdam.tar.gz",
        "lab/metrics/adaptation.json",
        "lab/project.lock",
        "benchmarks/assets/upstream/ntrex.tar.gz",
        "benchmarks/data/ntrex-news/en-de.jsonl",
        "benchmarks/metrics/bench/peers.json",
        "benchmarks/corpus/klexikon/README.md",
        "benchmarks/project.lock",
    ]
    ignored = subprocess.run(["git", "check-ignore", *generated], cwd=ROOT, capture_output=True, text=True).stdout
    assert ignored.split() == generated


def train_crf(tmp_path, *args):
    """(the run, the saved config.json) of project/train_crf.py ARGS for 1 epoch into tmp_path/crf."""
    run = run_script(
        ROOT / "project" / "train_crf.py", *args, "--output", tmp_path / "crf", "--epochs", "1", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    return run, json.loads((tmp_path / "crf" / "config.json").read_text(encoding="utf-8"))


@pytest.mark.slow
def test_train_crf_reads_several_gold_files(tmp_path):
    """project/train_crf.py --data A --data B trains on the documents of both (a user's own gold beside
    DEplain's), and the folder it writes aligns with `align --model`."""
    lines = (ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text("\n".join(lines[3:6]) + "\n", encoding="utf-8")
    run, config = train_crf(tmp_path, "--data", tmp_path / "a.jsonl", "--data", tmp_path / "b.jsonl")
    assert "trained on 6 documents" in run.stdout
    assert config["combination_weights"] is not None  # fitted on held-out documents: there were enough of them
    run = run_script(
        "-m",
        "spacy_simalign",
        "align",
        tmp_path / "a.jsonl",
        tmp_path / "out.jsonl",
        "--model",
        tmp_path / "crf",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert len((tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()) == 3


@pytest.mark.slow
def test_train_crf_wide_data_saves_a_pair_whose_crf_is_the_one_trained_alone(tmp_path, shared_data):
    """project/train_crf.py --wide-data PATH (the shipped weights' recipe) saves the CRF of --data with
    a wide CRF of both in wide/; the CRF's own weights are those of the same run without --wide-data."""
    lines = (ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "a.jsonl").write_text("\n".join(lines[:5]) + "\n", encoding="utf-8")
    sgc = shared_data("sgc-dev/pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "sgc.jsonl").write_text("\n".join(sgc[:2]) + "\n", encoding="utf-8")
    run, config = train_crf(tmp_path, "--data", tmp_path / "a.jsonl", "--wide-data", tmp_path / "sgc.jsonl")
    assert "wide CRF: trained on 7 documents" in run.stdout and config.get("wide_margin", 0.1) == 0.1
    assert (tmp_path / "crf" / "wide" / "model.npz").is_file()
    paired = (tmp_path / "crf" / "model.npz").read_bytes()
    train_crf(tmp_path, "--data", tmp_path / "a.jsonl")
    assert not (tmp_path / "crf" / "wide").exists()  # saved over the pair: one CRF, the old wide/ gone
    assert (tmp_path / "crf" / "model.npz").read_bytes() == paired


# -- the peer table (benchmarks/scripts/bench_peers.py and peers_table.py) ------------------------


def peer_system(bead, f, whole):
    """One system's figures on one set, as bench_peers.py writes them."""
    return {"bead": bead, "f": f, "p": f, "r": f, "whole": whole, "algo": 0.1, "label": "all", "docs": 1}


def two_peer_sets(**run):
    """A peer-table run of two translation sets A (1 document) and B (2 documents), no systems yet."""
    sets = {
        "a": {"title": "A", "kind": "translation", "size": "1 document", "systems": {}},
        "b": {"title": "B", "kind": "translation", "size": "2 documents", "systems": {}},
    }
    return {"sets": sets, "cpus": 2, "date": "2026-12-01", **run}


def test_the_peer_table_means_the_sets_and_rewrites_only_the_marked_blocks(tmp_path):
    table = bench_module("peers_table")
    results = two_peer_sets(notes=["a note"], complete=True, load=[3.0, 4.0])
    results["sets"]["a"]["systems"] = {"ours": peer_system(0.9, 0.95, 10.0), "bertalign": peer_system(0.8, 0.9, 20.0)}
    results["sets"]["b"]["systems"] = {"ours": peer_system(0.5, 0.7, 5.0), "bertalign": peer_system(0.7, 0.8, 5.0)}
    brief = table.brief(results)
    assert (
        "| **mean over the 2 sets** | 0.700 / 0.825 | **0.750** / **0.850** | **-0.050** | 15.0 / 25.0 (sum) |" in brief
    )
    assert "| A (1 document; translation) | **0.900** / **0.950** | 0.800 / 0.900 | +0.100 | 10.0 / 20.0 |" in brief
    assert "| A (1 document; translation) | all |" in table.full(results) and "- a note" in table.full(results)
    readme = tmp_path / "README.md"
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(text, encoding="utf-8")
    assert table.update_docs([readme], results) == [f"{readme}: brief"]
    new = readme.read_text(encoding="utf-8")
    start, end = table.MARKER.format(name="brief") + "\n", "<!-- end bench-peers:brief -->"
    assert new.split(start)[0] == text.split(start)[0] and new.split(end)[1] == text.split(end)[1]
    assert new.split(start)[1].split(end)[0] == f"\n{brief}\n"
    assert table.update_docs([readme], results) == []  # unchanged the second time
    for doc, name in (("README.md", "brief"), ("docs/results.md", "full")):
        assert table.MARKER.format(name=name) in (ROOT / doc).read_text(encoding="utf-8"), doc


def test_the_peer_table_gives_vecalign_its_columns_only_when_the_run_holds_it():
    """A run with vecalign: its strict / link cells and difference after bertalign's, its whole time
    third, the best figure of a row in bold, the mean over the sets that hold all three systems, and
    no vecalign among the other rows of ours."""
    table = bench_module("peers_table")
    results = two_peer_sets(notes=[], load=[1.0])
    a, b = results["sets"]["a"]["systems"], results["sets"]["b"]["systems"]
    a.update(
        ours=peer_system(0.9, 0.95, 10.0), bertalign=peer_system(0.8, 0.9, 20.0), vecalign=peer_system(0.7, 0.96, 8.0)
    )
    b.update(ours=peer_system(0.5, 0.7, 5.0), bertalign=peer_system(0.7, 0.8, 5.0))
    brief = table.brief(results)
    assert (
        "| ours - bertalign, strict | vecalign-USE: strict / link F1 | ours - vecalign, strict | whole s: ours / "
        in brief
    )
    row = "| A (1 document; translation) | **0.900** / 0.950 | 0.800 / 0.900 | +0.100 | 0.700 / **0.960** | +0.200 "
    assert row + "| 10.0 / 20.0 / 8.0 |" in brief and "| B (2 documents" not in brief  # B lacks vecalign
    assert "| **mean over the 1 sets** |" in brief
    full = table.full(results)
    assert "| 10.0 / 20.0 / 8.0 (x2.00 / x0.80) |" in full and "other rows of ours" not in full
    del a["vecalign"]
    assert "vecalign" not in table.brief(results) + table.full(results)


def a_set_apart():
    """Wiki-Manual's results as bench_peers.py writes a set apart: its own link measure, an other
    row of ours, the published figures and its notes."""
    systems = {"ours": peer_system(0.6, 0.62, 7.0), "bertalign": peer_system(0.5, 0.5, 9.0)}
    systems["tfidf"] = dict(peer_system(0.7, 0.72, 3.0), name="`align --method tfidf`")
    return {
        "title": "W",
        "kind": "simplification",
        "size": "3 documents",
        "link": "Task 1 (identical sentence pairs left out)",
        "published": "Published: CRF 0.890.",
        "date": "2026-12-05",
        "notes": ["measured alone"],
        "systems": systems,
    }


def test_a_set_apart_stays_out_of_the_mean_and_a_run_of_it_alone_rewrites_only_its_lines(tmp_path):
    """A set with a link measure of its own (Wiki-Manual's Task 1) is left out of the mean; its row
    comes after the mean row, its other rows and notes after the others, and the README gives it a
    line under the table. Merged into the blocks of a run without it, a run of that set alone gives
    the blocks of a whole run with it, the same when merged twice; merged into the docs, it adds its
    lines and keeps every other one."""
    table = bench_module("peers_table")
    base = two_peer_sets(notes=["a note"], complete=True, load=[1.0])
    base["sets"]["a"]["systems"] = {"ours": peer_system(0.9, 0.95, 10.0), "bertalign": peer_system(0.8, 0.9, 20.0)}
    base["sets"]["b"]["systems"] = {"ours": peer_system(0.5, 0.7, 5.0), "bertalign": peer_system(0.7, 0.8, 5.0)}
    whole = json.loads(json.dumps(base))
    whole["sets"]["w"] = a_set_apart()
    brief = table.brief(whole).splitlines()
    mean = "| **mean over the 2 sets** | 0.700 / 0.825 | **0.750** / **0.850** | **-0.050** | 15.0 / 25.0 (sum) |"
    row = (
        "| W (3 documents; simplification; link: Task 1) | **0.600** / **0.620** | 0.500 / 0.500 | +0.100 | 7.0 / 9.0 |"
    )
    line = (
        "W: link = Task 1 (identical sentence pairs left out), not in the mean; measured 2026-12-05. Other rows "
        "of ours, strict / link F1: `align --method tfidf` 0.700 / 0.720. Published: CRF 0.890."
    )
    assert mean in table.brief(base) and brief[brief.index(mean) + 1 :][:3] == [row, "", line]
    full = table.full(whole)
    assert "| `align --method tfidf` | W (link: Task 1) | all | 0.700 / 0.720 (0.720 / 0.720) | 3.0 | 0.10 |" in full
    assert "| **mean over the 2 sets** |" in full and full.endswith("- a note\n- W: measured alone\n")
    alone = {"sets": {"w": a_set_apart()}, "cpus": 2, "date": "2026-12-05", "notes": ["not shown"], "apart": True}
    for name, render in table.RENDERINGS.items():
        merged = table.merge_apart(f"\n{render(base)}\n", name, alone)
        assert merged == f"\n{render(whole)}\n" and table.merge_apart(merged, name, alone) == merged, name
    copies = {doc: tmp_path / doc.replace("/", "-") for doc in ("README.md", "docs/results.md")}
    for doc, path in copies.items():
        path.write_text((ROOT / doc).read_text(encoding="utf-8"), encoding="utf-8")
    assert len(table.update_docs(list(copies.values()), alone)) == 2
    ours = set(table.brief_rows(alone, apart=True) + table.full_rows(alone, apart=True) + table.apart_lines(alone))
    ours |= set(table.other_rows(alone, apart=True) + table.apart_notes(alone))
    for doc, path in copies.items():
        old, new = (ROOT / doc).read_text(encoding="utf-8").splitlines(), path.read_text(encoding="utf-8").splitlines()
        assert [x for x in new if x and x not in ours] == [x for x in old if x], doc
        assert sum(x in ours for x in new) == (2 if doc == "README.md" else 3), doc


@pytest.mark.slow
def test_a_smoke_run_of_the_peer_table_scores_ours_without_bertalign(tmp_path, shared_data):
    """`bench_peers.py --sets sgc --limit 2 --no-bertalign --epochs 2`: the default `align` on 2 Simple
    German Corpus documents (read from the seed corpora) with their website held out (a wide CRF of 2
    epochs trained without it), scored; no .venv-peers needed; such a partial run may not rewrite the docs."""
    data = shared_data("sgc-dev").parent
    script = BENCH / "scripts" / "bench_peers.py"
    out, report = tmp_path / "peers.json", tmp_path / "peers.md"
    args = ["--sets", "sgc", "--limit", "2", "--no-bertalign", "--no-algorithm-time", "--epochs", "2", "--data", data]
    run = run_script(script, *args, "--json", out, "--output", report, cwd=tmp_path, pythonpath=HELPERS)
    assert run.returncode == 0, run.stderr
    results = json.loads(out.read_text(encoding="utf-8"))
    assert list(results["sets"]) == ["sgc"] and results["complete"] is False
    ours = results["sets"]["sgc"]["systems"]["ours"]
    assert (
        set(results["sets"]["sgc"]["systems"]) == {"ours"}
        and ours["docs"] == 2
        and ours["label"] == "leave-one-website-out"
    )
    assert 0.5 < ours["f"] <= 1.0 and 0.0 < ours["bead"] <= 1.0 and ours["whole"] > 0  # CRF links most splits
    assert "| Simple German Corpus dev (2 documents, " in report.read_text(encoding="utf-8")
    refused = run_script(script, *args, "--docs", ROOT / "README.md", cwd=tmp_path, pythonpath=HELPERS)
    assert refused.returncode == 2 and "only from a whole run" in refused.stderr
    refused = run_script(script, "--from-json", out, "--docs", ROOT / "README.md", cwd=tmp_path, pythonpath=HELPERS)
    assert refused.returncode == 2 and "is not a whole run" in refused.stderr


@pytest.mark.slow
def test_a_smoke_run_of_wiki_manual_scores_task_1_with_the_lexical_methods_beside_ours(tmp_path, shared_data):
    """`bench_peers.py --sets wikimanual --limit 3 --no-bertalign`: the default `align` and `align
    --method tfidf / massalign / cats-c3g` on 3 Wiki-Manual documents, link P/R/F1 by Task 1 (what
    `evaluate --exclude-identical` gives for the same output), the set's notes with it."""
    data = shared_data("wikimanual-dev").parent
    script = BENCH / "scripts" / "bench_peers.py"
    out = tmp_path / "peers.json"
    args = ["--sets", "wikimanual", "--limit", "3", "--no-bertalign", "--no-algorithm-time", "--repeat", "1"]
    run = run_script(
        script,
        *args,
        "--data",
        data,
        "--json",
        out,
        "--output",
        tmp_path / "peers.md",
        cwd=tmp_path,
        pythonpath=HELPERS,
    )
    assert run.returncode == 0, run.stderr
    s = json.loads(out.read_text(encoding="utf-8"))["sets"]["wikimanual"]
    assert set(s["systems"]) == {"ours", "tfidf", "massalign", "cats-c3g"} and s["link"].startswith("Task 1 (")
    assert s["systems"]["tfidf"]["name"] == "`align --method tfidf`" and "Jiang et al. 2020, Table 12" in s["published"]
    pairs = tmp_path / "three.jsonl"
    pairs.write_text("".join((data / "wikimanual-dev" / "pairs.jsonl").open(encoding="utf-8").readlines()[:3]))
    aligned, metrics = tmp_path / "aligned.jsonl", tmp_path / "metrics.json"
    for command in (
        ["align", pairs, aligned, "--method", "tfidf"],
        ["evaluate", pairs, aligned, "--exclude-identical", "--output", metrics],
    ):
        done = run_script("-m", "spacy_simalign", *command, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
    link = json.loads(metrics.read_text(encoding="utf-8"))["link"]
    assert [s["systems"]["tfidf"][k] for k in ("p", "r", "f")] == [link[k] for k in ("p", "r", "f")]


@pytest.mark.slow
def test_two_gold_documents_are_refused_by_convert_and_an_empty_gold_by_evaluate(tmp_path):
    """Two documents would leave convert an empty test split, and evaluate on no documents would
    report F1 0.000 with exit 0: both stop with one line, exit 2, nothing written."""
    lines = (ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "two.jsonl").write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    run = run_script(ROOT / "project" / "convert.py", tmp_path / "two.jsonl", tmp_path / "corpus")
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "2 documents are too few" in run.stderr and "need at least 3" in run.stderr
    assert not (tmp_path / "corpus").exists()
    (tmp_path / "none.jsonl").write_text("", encoding="utf-8")
    run = run_script(
        ROOT / "project" / "evaluate.py", "-", tmp_path / "none.jsonl", tmp_path / "m.json", "--method", "tfidf"
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "no documents to evaluate on" in run.stderr and not (tmp_path / "m.json").exists()


def test_convert_with_nothing_held_out_keeps_every_document_in_the_golds_order(tmp_path):
    """The wikimanual workflow adapts on every document (--dev 0 --test 0) and adapt-folds cuts its
    folds by position: train.jsonl is then the gold's documents in the gold's order, unshuffled."""
    lines = (ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    gold = [json.loads(line) for line in lines[:6]]
    run = run_script(
        ROOT / "project" / "convert.py",
        ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl",
        tmp_path,
        "--dev",
        "0",
        "--test",
        "0",
        "--limit",
        "6",
        "--seed",
        "3",
    )
    assert run.returncode == 0, run.stderr
    train = [json.loads(line) for line in (tmp_path / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert train == gold
    split = json.loads((tmp_path / "split.json").read_text(encoding="utf-8"))
    assert split["train"] == [record["id"] for record in gold] and split["dev"] == split["test"] == []


def test_evaluate_links_task1_is_the_task_1_protocol_that_the_project_var_names(tmp_path):
    """vars.link_scoring reaches evaluate.py as `--links task1` (weasel strips the leading dashes of a
    --vars value, so the var cannot hold `--exclude-identical`): the same scores as that flag."""
    lines = (ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "gold.jsonl").write_text("\n".join(lines[:4]) + "\n", encoding="utf-8")
    scores = {}
    for name, option in (
        ("plain", ["--links", "plain"]),
        ("task1", ["--links", "task1"]),
        ("flag", ["--exclude-identical"]),
    ):
        out = tmp_path / f"{name}.json"
        run = run_script(
            ROOT / "project" / "evaluate.py", "-", tmp_path / "gold.jsonl", out, "--method", "tfidf", *option
        )
        assert run.returncode == 0, run.stderr
        scores[name] = {k: v for k, v in json.loads(out.read_text(encoding="utf-8")).items() if k != "seconds"}
    assert scores["task1"] == scores["flag"] and "protocol" in scores["task1"]
    assert "protocol" not in scores["plain"] and scores["plain"]["link"] != scores["task1"]["link"]


def test_the_readme_tuned_example_is_a_block_the_readme_figures_command_writes():
    """The README's tuned-example figures stand in a marked block that benchmarks/scripts/readme_figures.py
    (command readme-figures) rewrites, so that they are what the commands give, not typed in by hand."""
    import yaml

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count("<!-- readme-figures: begin") == 1 and readme.count("<!-- readme-figures: end -->") == 1
    block = readme.split("<!-- readme-figures: begin")[1].split("<!-- readme-figures: end -->")[0]
    assert "link\nprecision goes from 0." in block and "threshold = 0.8" in readme.split("<!-- readme-figures")[0]
    steps = {c["name"]: c["script"] for c in yaml.safe_load((BENCH / "project.yml").read_text())["commands"]}
    assert steps["readme-figures"][0].startswith("env PYTHONPATH=helpers python scripts/readme_figures.py ")


@pytest.mark.slow
def test_the_readme_figures_are_those_the_commands_give_today(tmp_path):
    """benchmarks/scripts/readme_figures.py --check: align and evaluate the 82 pairs with both configs (about a
    CPU minute) and compare with the README's block, rewriting nothing."""
    run = run_script(BENCH / "scripts" / "readme_figures.py", "--check", pythonpath=HELPERS)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "up to date" in run.stderr


# -- Wiki-Manual from its upstream CSV (workflow wikimanual) -------------------------------------

WIKIMANUAL_HEADER = "alignment;reg_sent;sim_sent\n"
# Two articles in the upstream layout (';'-separated, one group a row, ids ARTICLE-LEVEL-PARAGRAPH-SENTENCE,
# rows in any order). Article 7_1: a 2:1 group whose joined text holds "Dr." (no sentence end), a 1:2
# group, a deletion and an addition; article 9_2 has a group that cuts into 1 piece for 2 ids: left out.
WIKIMANUAL_CSV = WIKIMANUAL_HEADER + (
    "\"(['7_1-1-1-0'], [])\";Nobody remembers it.;\n"
    "\"(['7_1-1-0-0', '7_1-1-0-1'], ['7_1-0-0-0'])\";Dr. Ann Lee founded the town in 1850. It grew fast.;"
    "Ann Lee founded the fast-growing town.\n"
    "\"([], ['7_1-0-1-2'])\";;It is old.\n"
    "\"(['7_1-1-1-1'], ['7_1-0-1-0', '7_1-0-1-1'])\";The river, which is long, floods often.;"
    "The river is long. It floods often.\n"
    "\"(['9_2-1-0-0'], ['9_2-0-0-0', '9_2-0-0-1'])\";A sentence.;one piece only\n"
)


def test_wikimanual_convert_rebuilds_articles_paragraphs_and_beads_from_the_upstream_csv(tmp_path, capsys):
    convert = project_module("wikimanual_pairs").main
    (tmp_path / "dev.csv").write_text(WIKIMANUAL_CSV, encoding="utf-8")
    out = tmp_path / "pairs.jsonl"
    assert convert([str(out), "--csv", str(tmp_path / "dev.csv")]) == 0
    err = capsys.readouterr().err
    assert f"{tmp_path / 'dev.csv'}:6: unsplittable: 2 sentences, 1 pieces" in err
    assert "1 pairs, 2 gold beads; 1 articles left out" in err
    (pair,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert pair == {
        "id": "wikimanual-7_1",
        "lang": "en",
        "lang_simple": "en",
        "complex": {
            "paragraphs": [
                ["Dr. Ann Lee founded the town in 1850.", "It grew fast."],
                ["Nobody remembers it.", "The river, which is long, floods often."],
            ]
        },
        "simple": {
            "paragraphs": [
                ["Ann Lee founded the fast-growing town."],
                ["The river is long.", "It floods often.", "It is old."],
            ]
        },
        "gold": [[[0, 1], [0]], [[3], [1, 2]]],
    }


def test_wikimanual_convert_refuses_a_bad_row_or_checksum_with_one_located_line(tmp_path, capsys):
    convert = project_module("wikimanual_pairs").main
    out = tmp_path / "pairs.jsonl"
    bad = tmp_path / "bad.csv"
    bad.write_text(
        WIKIMANUAL_HEADER + "\"(['7_1-1-0-0'], [])\";One.;\n\"(['7_1-x-0-1'], [])\";Two.;\n", encoding="utf-8"
    )
    assert convert([str(out), "--csv", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bad}:3: 'alignment' must be two lists of ids") and err.count("\n") == 1
    (tmp_path / "dev.csv").write_text(WIKIMANUAL_CSV, encoding="utf-8")
    assert convert([str(out), "--csv", str(tmp_path / "dev.csv"), "--md5", "0" * 32]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'dev.csv'}: the pairs have MD5 " in err and "nothing written" in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv", "dev.csv"]


def upstream_csv(pairs_path: Path) -> str:
    """Wiki-Manual pair JSONL written back in the upstream CSV layout: a row per gold bead (its sentences
    joined by a space) and per sentence in no bead, ids numbered by paragraph and sentence."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(["alignment", "reg_sent", "sim_sent"])
    for line in pairs_path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        article = record["id"].removeprefix("wikimanual-")
        sides = [
            [
                (f"{article}-{level}-{p}-{s}", text)
                for p, para in enumerate(record[name]["paragraphs"])
                for s, text in enumerate(para)
            ]
            for name, level in (("complex", 1), ("simple", 0))
        ]
        in_beads = [set(), set()]
        for bead in record["gold"]:
            row = [[sides[side][i] for i in bead[side]] for side in (0, 1)]
            in_beads[0] |= set(bead[0])
            in_beads[1] |= set(bead[1])
            writer.writerow(
                [repr(tuple([sid for sid, _ in r] for r in row)), *(" ".join(t for _, t in r) for r in row)]
            )
        for side in (0, 1):
            for i, (sid, text) in enumerate(sides[side]):
                if i not in in_beads[side]:
                    ids, texts = [[], []], ["", ""]
                    ids[side], texts[side] = [sid], text
                    writer.writerow([repr(tuple(ids)), *texts])
    return out.getvalue()


def test_wikimanual_convert_gives_the_shared_pairs_byte_for_byte_from_their_csv_layout(tmp_path, shared_data, capsys):
    """The real 49 articles, written back in the upstream layout, convert to ../shared/data's file to the
    byte (the MD5 the workflow checks): the same rules as the recipe that made it. Offline, --pairs copies
    that file, checked by the same checksum."""
    convert = project_module("wikimanual_pairs").main
    pairs = shared_data("wikimanual-dev/pairs.jsonl")
    (tmp_path / "dev.csv").write_text(upstream_csv(pairs), encoding="utf-8")
    md5 = "107ee11d919684d4fc59f800642bfe67"
    assert convert([str(tmp_path / "out.jsonl"), "--csv", str(tmp_path / "dev.csv"), "--md5", md5]) == 0
    assert (tmp_path / "out.jsonl").read_bytes() == pairs.read_bytes()
    assert "49 pairs, 280 gold beads; 0 articles left out" in capsys.readouterr().err
    assert convert([str(tmp_path / "copy.jsonl"), "--pairs", str(pairs), "--md5", md5]) == 0
    assert (tmp_path / "copy.jsonl").read_bytes() == pairs.read_bytes()
