"""The plugin's own registries (made the way spacy-llm makes its own), each open to third
parties through an entry-point group:

- `simalign_similarity` (group `spacy_simalign_similarity`): sentence-similarity backends,
  `@simalign_similarity = "spacy-simalign.USESimilarity.v1"` in a config.
- `simalign_aligners` (group `spacy_simalign_aligners`): sentence and paragraph aligners,
  `@simalign_aligners = "spacy-simalign.CRFAligner.v3"`; the alignment components take one
  as their `aligner` sub-config (see aligners/protocol.py for what an aligner implements).
- `simalign_doc_indexes`, `simalign_doc_strategies`, `simalign_doc_rerankers` (groups
  `spacy_simalign_doc_...`): document matching's nearest-neighbour indexes, pair-selection
  strategies and second stages; a matcher config or the CLI names one by its registered name
  or its short name ("spacy-simalign.BestSourceStrategy.v1" is "best-source", see short_name).

Entry points make a name resolvable without importing its module first, so a run imports
only the aligners and backends its config names. The registries hang on confection's
registry class, which spaCy's and thinc's extend: configs resolved by spaCy find them, and
registering an aligner does not import spaCy."""

import re
from typing import Dict

import catalogue
from confection import registry

from .errors import InputError


def _table(name: str) -> catalogue.Registry:
    """confection's `registry.simalign_<name>`, made on first import with catalogue directly so
    that its entry-point group is spacy_simalign_<name> (spaCy's registry.create would name it
    thinc_<name>)."""
    attr = f"simalign_{name}"
    if not hasattr(registry, attr):
        setattr(registry, attr, catalogue.create("spacy_simalign", name, entry_points=True))
    return getattr(registry, attr)


similarity_registry = _table("similarity")
aligner_registry = _table("aligners")
doc_index_registry = _table("doc_indexes")
doc_strategy_registry = _table("doc_strategies")
doc_reranker_registry = _table("doc_rerankers")

_OWN = re.compile(r"spacy-simalign\.(\w+?)(Index|Strategy|Rerank)\.v\d+$")


def short_name(registered: str) -> str:
    """The short name of one of the plugin's own docmatch names: the camel-case part without
    its kind, in kebab case ("spacy-simalign.BestSourceStrategy.v1" -> "best-source"); other
    names are their own short name."""
    match = _OWN.match(registered)
    return re.sub(r"(?<!^)(?=[A-Z])", "-", match.group(1)).lower() if match else registered


def short_names(table) -> Dict[str, str]:
    """Short name -> registered name of every name in a registry (entry points included), in
    the order they were registered in (a module's in the order it defines them: entry points
    are listed sorted); of two names with one short name, the later one."""
    everything = table.get_all()  # loads the entry points, which registers their modules' names
    own = [keys[-1] for keys in catalogue.REGISTRY if keys[:-1] == tuple(table.namespace)]
    return {short_name(name): name for name in own + [name for name in everything if name not in own]}


def lookup(table, name: str, what: str):
    """The registered function of a short or registered name; unknown names are one-line errors."""
    if name in table:
        return table.get(name)
    names = short_names(table)
    if name not in names:
        raise InputError(f"unknown {what} '{name}' (choose from: {', '.join(names)})")
    return table.get(names[name])
