"""Named aligner configs: `align --method NAME`, `demo --method`, `align-xling --method` and
the components' defaults map a short name to a registered aligner (a config section [aligner]
that `align --config FILE` can replace with any other). A method is a registered aligner, its
similarity backend and only the settings where it differs from the aligner's signature: every
other value comes from the registry, so each default is written once, in the registered
function. Print one, every value filled in, with `python -m spacy_simalign init-config NAME`,
edit it, pass it with --config."""

from dataclasses import dataclass, field
from typing import Dict, Optional

from confection import Config

from ..core.config_sections import read_config, resolve_section
from ..core.errors import InputError

DEFAULT_SENTENCE_METHOD = "crf"
DEFAULT_PARAGRAPH_METHOD = "jiang"


@dataclass(frozen=True)
class Method:
    """A registered aligner, the registered similarity backend it compares texts with, and the
    settings where this method differs from the aligner's own defaults (ideally none)."""

    aligner: str
    similarity: str
    settings: Dict[str, object] = field(default_factory=dict)

    def spec(self) -> Config:
        """The short [aligner] config: names and the differing settings; the registry fills the rest."""
        return Config(
            {
                "aligner": {
                    "@simalign_aligners": self.aligner,
                    **self.settings,
                    "similarity": {"@simalign_similarity": self.similarity},
                }
            }
        )


USE = "spacy-simalign.USESimilarity.v1"
WORD_TFIDF = "spacy-simalign.TfidfSimilarity.v1"
C3G = "spacy-simalign.CharNgramSimilarity.v1"
MASSALIGN_TFIDF = "spacy-simalign.MassalignSimilarity.v1"

SENTENCE_METHODS: Dict[str, Method] = {
    "crf": Method("spacy-simalign.CRFAligner.v3", USE),
    "massalign": Method("spacy-simalign.MASSAlign.v1", MASSALIGN_TFIDF),
    "cats-c3g": Method("spacy-simalign.CATS.v1", C3G),
    "cats-c3g-seq": Method("spacy-simalign.CATS.v1", C3G, {"strategy": "closest-seq"}),
    "tfidf": Method("spacy-simalign.Tfidf.v1", WORD_TFIDF),
    "bead-dp": Method("spacy-simalign.BeadDP.v1", USE),
    "bead-anchors": Method("spacy-simalign.BeadDP.v3", USE),
    "intersection": Method("spacy-simalign.XlingIntersection.v1", USE),
}

PARAGRAPH_METHODS: Dict[str, Method] = {
    "jiang": Method("spacy-simalign.JiangParagraphs.v1", WORD_TFIDF),
    "jiang-wiki": Method("spacy-simalign.JiangWikiParagraphs.v1", WORD_TFIDF),
    "massalign": Method("spacy-simalign.MASSAlignParagraphs.v1", MASSALIGN_TFIDF),
    "tfidf": Method("spacy-simalign.TfidfParagraphs.v1", WORD_TFIDF),
}


def named_method(name: str, paragraph: bool = False) -> Method:
    table = PARAGRAPH_METHODS if paragraph else SENTENCE_METHODS
    if name not in table:
        kind = "paragraph" if paragraph else "alignment"
        raise InputError(f"unknown {kind} method '{name}' (known: {', '.join(table)})")
    return table[name]


def method_config(name: str, paragraph: bool = False) -> Config:
    """The [aligner] config of a named method, filled by the registry: every value that runs is shown."""
    from confection import registry

    from ..core import registries as _registries  # noqa: F401  (creates the plugin's registries)

    return without_retired_keys(registry.fill(named_method(name, paragraph).spec()))


def without_retired_keys(node):
    """A filled config less the settings its functions accept only at their off value, for configs
    saved by 0.1.0 (crf/retired.py): a config to start from shows only what is offered."""
    from ..core.setting_checks import rules_of
    from .crf.retired import Retired

    for value in node.values():
        if isinstance(value, dict):
            without_retired_keys(value)
    for key, rule in rules_of(node).items():
        if isinstance(rule, Retired):
            node.pop(key, None)
    return node


def component_config(section: str, settings: str, method: str, paragraph: bool = False) -> Config:
    """A component's default config: its own `settings` (config text of [section]) and, as its
    `aligner`, the short config of a named method (spaCy fills in the defaults when it adds the
    pipe; the short form keeps the aligner's module unimported until then)."""
    config = Config().from_str(settings)
    own = config[section]
    config[section] = {
        **{k: v for k, v in own.items() if not isinstance(v, dict)},
        "aligner": named_method(method, paragraph).spec()["aligner"],
        **{k: v for k, v in own.items() if isinstance(v, dict)},
    }  # sub-sections after the aligner
    return config


def load_aligner_config(path: str) -> Config:
    """An [aligner] config from a file; located one-line errors for a missing file, bad syntax
    or a missing section."""
    return read_config(path, "aligner", "aligner", " (see `python -m spacy_simalign init-config crf`)")


def build_aligner(config: Config, path: Optional[str] = None, kind: str = "sentence"):
    """The aligner of an [aligner] config, resolved through the registry (third-party names
    included, by entry point); bad names or settings are one-line errors."""
    aligner = resolve_section(config, "aligner", path)
    wanted = "align_paragraphs" if kind == "paragraph" else "align"
    if not hasattr(aligner, wanted):
        raise InputError(f"[aligner] is not a {kind} aligner (it has no {wanted}() method)", path)
    return aligner
