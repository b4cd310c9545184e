"""The `simalign_segmenter` component: paragraphs and sentences for spacy.blank(lang).

No trained pipeline is needed (there is none for German or Dutch sentence
alignment here): each side of a Doc pair that came as raw text is split by the
rules in `rules.py`, in that side's own language; sides given pre-segmented keep
their boundaries exactly. A plain Doc counts as one side in nlp's language.
Put it first in the pipeline: spaCy forbids changing sentence starts once a
parser has run.
"""

from typing import Iterable, List, Optional

from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from ..segmentation.rules import segment
from . import doc_pair as pair

DEFAULT_CONFIG_STR = """
[segmenter]
extra_abbreviations = []
extra_final_abbreviations = []
colon_boundaries = null
"""

DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)["segmenter"]


class Segmenter:
    """Sets sentence starts and the `<side>_paragraphs` span groups of every raw-text side.

    extra_abbreviations: abbreviations that never end a sentence ("Abt.", "z. Hd.").
    extra_final_abbreviations: abbreviations that may end one ("Pkt.").
    colon_boundaries: also end sentences at colons joining two main clauses, as
        DEplain's gold does; None means "for German only".
    """

    def __init__(
        self,
        nlp: Language,
        name: str = "simalign_segmenter",
        extra_abbreviations: Iterable[str] = (),
        extra_final_abbreviations: Iterable[str] = (),
        colon_boundaries: Optional[bool] = None,
    ):
        self.name = name
        self.extra_abbreviations: List[str] = list(extra_abbreviations)
        self.extra_final_abbreviations: List[str] = list(extra_final_abbreviations)
        self.colon_boundaries = colon_boundaries
        pair.install_extensions()

    def __call__(self, doc: Doc) -> Doc:
        for side in pair.sides(doc):
            if side.presegmented:
                continue
            if len(doc) and doc.has_annotation("DEP"):
                raise ValueError(
                    f"[{self.name}] the Doc is already parsed and spaCy forbids changing its sentences: "
                    f"add the segmenter before the parser (nlp.add_pipe('{self.name}', first=True))"
                )
            paragraphs = segment(
                side.span.text,
                side.lang,
                extra_non_final=self.extra_abbreviations,
                extra_final=self.extra_final_abbreviations,
                colon_boundaries=self.colon_boundaries,
            )
            pair.apply_segmentation(doc, side.name, paragraphs)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 128):
        for doc in docs:
            yield self(doc)


@Language.factory("simalign_segmenter", default_config=DEFAULT_CONFIG, assigns=["token.is_sent_start"])
def make_segmenter(
    nlp: Language,
    name: str,
    extra_abbreviations: List[str],
    extra_final_abbreviations: List[str],
    colon_boundaries: Optional[bool],
) -> Segmenter:
    """Rule-based paragraph and sentence segmenter for de, nl, fr and en."""
    return Segmenter(nlp, name, extra_abbreviations, extra_final_abbreviations, colon_boundaries)
