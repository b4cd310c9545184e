"""The package's import structure: no import cycle between modules, and no module importing
one of a higher layer (lazy imports inside functions included). Layers, low to high: plain
data, text (segmentation, similarity), algorithms (on plain data: they read no files), formats,
spaCy components, application
(pipelines, engines, corpus and viewing tools), commands."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spacy_simalign"

LAYERS = [  # module name prefixes (dotted, below spacy_simalign), lowest layer first
    ("base", ["errors", "structures", "caches", "registry", "progress", "configs", "tokens", "outputs", "limits"]),
    ("text", ["segmentation.rules", "segmentation.abbreviations", "segmentation.sides", "segmentation.evaluation",
              "similarity"]),
    ("algorithms", ["aligner_protocol", "bead_dp", "lexical", "paragraphs", "xling", "crf", "scoring", "docmatch.strategies",
                    "docmatch.index", "docmatch.lexical", "docmatch.fields", "corpus.pairs"]),
    ("formats", ["formats"]),
    ("spacy", ["pair", "segmentation.component", "segmentation", "components", "readers", "docmatch.component",
               "corpus.anonymise"]),
    ("application", ["methods", "pipeline", "engines", "evaluation", "stats", "render", "review", "resume", "deplain",
                     "xling_corpus", "docmatch", "corpus"]),
    ("commands", ["commands", "__main__", "__init__"]),
]


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


def layer_of(module: str) -> int:
    best, level = -1, None
    for k, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), k
    assert level is not None, f"module {module} is in no layer: add it to LAYERS"
    return level


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
                base = package[:len(package) - node.level + 1] if node.level > 1 else package
                stem = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("spacy_simalign"):
                stem = node.module[len("spacy_simalign"):].lstrip(".")
            else:
                continue
            for alias in node.names:  # "from . import pair": a module; "from .x import name": module x
                candidate = f"{stem}.{alias.name}".lstrip(".")
                targets.append(candidate if (PACKAGE / candidate.replace(".", "/")).with_suffix(".py").exists()
                               or (PACKAGE / candidate.replace(".", "/")).is_dir() else stem)
        elif isinstance(node, ast.Import):
            targets = [a.name[len("spacy_simalign"):].lstrip(".") for a in node.names
                       if a.name.startswith("spacy_simalign")]
        for target in targets:
            if target:
                yield target, node.lineno, id(node) in top_level


FILES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: module_name(p) or "__init__")
def test_no_import_runs_up_a_layer(path):
    own = layer_of(module_name(path))
    for target, line, _ in imports(path):
        assert layer_of(target) <= own, (f"{path.relative_to(PACKAGE)}:{line} imports {target} "
                                         f"({LAYERS[layer_of(target)][0]}) from the {LAYERS[own][0]} layer")


def test_no_import_cycle_between_modules():
    graph = {}
    for path in FILES:
        graph.setdefault(module_name(path), set()).update(t for t, _, top in imports(path) if top)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(stack[stack.index(nxt):] + [nxt]))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node)
