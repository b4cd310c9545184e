"""The package's import structure: no import cycle between modules (imports inside functions
counted), and no module importing one of a higher layer. The folders are the layers, low to high:
base (core/: plain data, errors, the setting and path checks, the registries; startup/: the
start-up shortcuts), text (segmentation/, similarity/), algorithms on plain
data that read no files (aligners/, with the metrics alignments are scored by), formats (formats/),
spaCy (pipeline/), application (engines/, evaluation/, review/, corpus/, docmatch/) and commands
(commands/). A module sits in the folder of its layer; only the entry points and the README's alias
are listed in MODULES. An application folder may hold its own algorithms (docmatch's strategies and
index, corpus's filters) as long as no lower layer needs them."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_simalign"

LAYERS = ["base", "text", "algorithms", "formats", "spacy", "application", "commands"]
FOLDERS = {
    "core": "base",
    "startup": "base",
    "segmentation": "text",
    "similarity": "text",
    "aligners": "algorithms",
    "formats": "formats",
    "pipeline": "spacy",
    "engines": "application",
    "evaluation": "application",
    "review": "application",
    "corpus": "application",
    "docmatch": "application",
    "commands": "commands",
}
MODULES = {  # modules whose layer is not their folder's
    "__main__": "commands",
    "__init__": "commands",
    "spacy_cli": "commands",  # `python -m spacy simalign`: runs __main__'s main
    "pair": "spacy",  # the alias of pipeline.doc_pair that the README imports
}


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> int:
    if module in MODULES:
        return LAYERS.index(MODULES[module])
    top = module.split(".")[0]
    if "." not in module and top not in FOLDERS:
        assert (PACKAGE / f"{top}.py").exists(), f"module {module} does not exist"
        return LAYERS.index("base")
    assert top in FOLDERS, f"folder {top}/ is in no layer: add it to FOLDERS"
    return LAYERS.index(FOLDERS[top])


def imports(path: Path):
    """(imported module below spacy_simalign, line, at module level?) of one file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = module_name(path)
    package = own.split(".") if path.name == "__init__.py" else own.split(".")[:-1]
    top_level = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                stem = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("spacy_simalign"):
                stem = node.module[len("spacy_simalign") :].lstrip(".")
            else:
                continue
            for alias in node.names:  # "from . import pair": a module; "from .x import name": module x
                candidate = f"{stem}.{alias.name}".lstrip(".")
                targets.append(
                    candidate
                    if (PACKAGE / candidate.replace(".", "/")).with_suffix(".py").exists()
                    or (PACKAGE / candidate.replace(".", "/")).is_dir()
                    else stem
                )
        elif isinstance(node, ast.Import):
            targets = [
                a.name[len("spacy_simalign") :].lstrip(".") for a in node.names if a.name.startswith("spacy_simalign")
            ]
        for target in targets:
            if target:
                yield target, node.lineno, id(node) in top_level


FILES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: module_name(p) or "__init__")
def test_no_import_runs_up_a_layer(path):
    own = layer_of(module_name(path))
    for target, line, _ in imports(path):
        assert layer_of(target) <= own, (
            f"{path.relative_to(PACKAGE)}:{line} imports {target} "
            f"({LAYERS[layer_of(target)]}) from the {LAYERS[own]} layer"
        )


def test_no_import_cycle_between_modules():
    graph = {}
    for path in FILES:
        graph.setdefault(module_name(path), set()).update(t for t, _, _ in imports(path) if t != module_name(path))
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(nxt) :] + [nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
