"""Named aligner configs: `align --method NAME`, `demo --method`, `align-xling --method` and
the components' defaults map a short name to a registered aligner with its default settings
(a config section [aligner] that `align --config FILE` can replace with any other). Print
one with `python -m spacy_simalign init-config NAME`, edit it, pass it with --config."""
from typing import Dict, Optional

from confection import Config

from ..configs import read_config, resolve_section
from ..errors import InputError

DEFAULT_SENTENCE_METHOD = "crf"
DEFAULT_PARAGRAPH_METHOD = "jiang"

SENTENCE_METHODS: Dict[str, str] = {
    "crf": """
[aligner]
@simalign_aligners = "spacy-simalign.CRFAligner.v1"
weights = "shipped"

[aligner.similarity]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
""",
    "massalign": """
[aligner]
@simalign_aligners = "spacy-simalign.MASSAlign.v1"
acceptable_similarity = 0.2
slack = 0.05
paragraph_similarity = 0.3
use_paragraphs = true

[aligner.similarity]
@simalign_similarity = "spacy-simalign.MassalignSimilarity.v1"
stop_words = true
""",
    "cats-c3g": """
[aligner]
@simalign_aligners = "spacy-simalign.CATS.v1"
strategy = "closest"
group = true

[aligner.similarity]
@simalign_similarity = "spacy-simalign.CharNgramSimilarity.v1"
n = 3
""",
    "cats-c3g-seq": """
[aligner]
@simalign_aligners = "spacy-simalign.CATS.v1"
strategy = "closest-seq"
group = true

[aligner.similarity]
@simalign_similarity = "spacy-simalign.CharNgramSimilarity.v1"
n = 3
""",
    "tfidf": """
[aligner]
@simalign_aligners = "spacy-simalign.Tfidf.v1"
threshold = 0.3
use_paragraphs = true
paragraph_threshold = 0.2

[aligner.similarity]
@simalign_similarity = "spacy-simalign.TfidfSimilarity.v1"
analyzer = "word"
ngram = 1
""",
    "bead-dp": """
[aligner]
@simalign_aligners = "spacy-simalign.BeadDP.v1"
max_align = 5
top_k = 3
window = 5
skip = -0.1

[aligner.similarity]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
""",
    "intersection": """
[aligner]
@simalign_aligners = "spacy-simalign.XlingIntersection.v1"
threshold = 40.0

[aligner.similarity]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
""",
}

PARAGRAPH_METHODS: Dict[str, str] = {
    "jiang": """
[aligner]
@simalign_aligners = "spacy-simalign.JiangParagraphs.v1"
tau1 = 0.1
tau2 = 0.35
tau3 = 0.9
tau4 = 0.5
tau5 = 0.2

[aligner.similarity]
@simalign_similarity = "spacy-simalign.TfidfSimilarity.v1"
analyzer = "word"
ngram = 1
""",
    "jiang-wiki": """
[aligner]
@simalign_aligners = "spacy-simalign.JiangWikiParagraphs.v1"
tau1 = 0.1
tau2 = 0.8

[aligner.similarity]
@simalign_similarity = "spacy-simalign.TfidfSimilarity.v1"
analyzer = "word"
ngram = 1
""",
    "massalign": """
[aligner]
@simalign_aligners = "spacy-simalign.MASSAlignParagraphs.v1"
acceptable_similarity = 0.3
slack = 0.05

[aligner.similarity]
@simalign_similarity = "spacy-simalign.MassalignSimilarity.v1"
stop_words = true
""",
    "tfidf": """
[aligner]
@simalign_aligners = "spacy-simalign.TfidfParagraphs.v1"
threshold = 0.2

[aligner.similarity]
@simalign_similarity = "spacy-simalign.TfidfSimilarity.v1"
analyzer = "word"
ngram = 1
""",
}


def method_config(name: str, paragraph: bool = False) -> Config:
    """The [aligner] config of a named method."""
    table = PARAGRAPH_METHODS if paragraph else SENTENCE_METHODS
    if name not in table:
        kind = "paragraph" if paragraph else "alignment"
        raise InputError(f"unknown {kind} method '{name}' (known: {', '.join(table)})")
    return Config().from_str(table[name])


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

