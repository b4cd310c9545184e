"""`simalign_paragraph_aligner`: aligns the paragraphs of a Doc pair with an injected
paragraph aligner (Jiang et al. Alg. 1-4, MASSAlign, TF-IDF, or any registered one) and
writes the links to `doc._.paragraph_alignment_data` (read back as
`doc._.paragraph_alignment`); the sentence aligner then aligns inside linked paragraphs."""

from typing import Iterable

from spacy.language import Language
from spacy.tokens import Doc
from thinc.api import Config

from ..aligners.methods import DEFAULT_PARAGRAPH_METHOD, component_config
from ..aligners.protocol import ParagraphAligner
from ..core import registries as _registries  # noqa: F401  (creates the registries the config names)
from . import doc_pair as pair

DEFAULT_CONFIG_STR = component_config(
    "paragraph_aligner",
    """
[paragraph_aligner]
""",
    DEFAULT_PARAGRAPH_METHOD,
    paragraph=True,
).to_str()  # the aligner: the default named method's


class ParagraphAlignerComponent:
    """Calls `aligner.align_paragraphs(complex, simple)` on each Doc pair."""

    def __init__(self, nlp: Language, name: str, aligner: ParagraphAligner):
        if not isinstance(aligner, ParagraphAligner):
            raise ValueError(
                f"[{name}] the aligner is not a paragraph aligner (no align_paragraphs method): "
                "use a paragraph aligner such as spacy-simalign.JiangParagraphs.v1"
            )
        self.name, self.aligner = name, aligner
        pair.install_extensions()

    def __call__(self, doc: Doc) -> Doc:
        if doc._.pair_info is None:
            return doc
        links = self.aligner.align_paragraphs(pair.side_of(doc, "complex"), pair.side_of(doc, "simple"))
        pair.set_paragraph_links(doc, links)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 32):
        for doc in docs:
            yield self(doc)


@Language.factory(
    "simalign_paragraph_aligner",
    default_config=Config().from_str(DEFAULT_CONFIG_STR)["paragraph_aligner"],
    assigns=["doc._.paragraph_alignment_data"],
    requires=["token.is_sent_start"],
)
def make_paragraph_aligner(nlp: Language, name: str, aligner) -> ParagraphAlignerComponent:
    """Paragraph alignment of Doc pairs (default: Jiang et al. Alg. 1+2 with word TF-IDF)."""
    return ParagraphAlignerComponent(nlp, name, aligner)
