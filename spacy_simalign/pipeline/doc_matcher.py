"""The `simalign_doc_matcher` pipeline component: embeds each Doc from its chosen fields into
`doc._.doc_embedding` (plain list of floats, so it survives DocBin and to_disk). Matching is
across collections, so it is done by DocMatcher.match(source_docs, target_docs), which takes
these Docs and reuses their embeddings. Title, lead, date and id can be given through
`doc._.doc_title`, `doc._.doc_lead`, `doc._.doc_date` (YYYY-MM-DD) and `doc._.doc_id`."""

import json
from typing import List, Sequence

import numpy as np
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import Config

from ..core import registries as _registries  # noqa: F401  (creates the registries the config names)
from ..core.errors import InputError
from ..core.structures import SUPPORTED_LANGS
from ..formats.document_fields import DEFAULT_FIELDS, check_fields, field_text
from ..formats.documents import Document, parse_date

DEFAULT_CONFIG_STR = f"""
[simalign_doc_matcher]
fields = {json.dumps(list(DEFAULT_FIELDS))}

[simalign_doc_matcher.embedder]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
"""
DEFAULT_CONFIG = Config().from_str(DEFAULT_CONFIG_STR)["simalign_doc_matcher"]


def install_extensions() -> None:
    for name in ("doc_id", "doc_title", "doc_lead", "doc_date", "doc_embedding"):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)


install_extensions()


def document_from_doc(doc: Doc) -> Document:
    """A Document for the matcher from a Doc and its doc_* extensions."""
    install_extensions()
    doc_id = doc._.doc_id
    if not isinstance(doc_id, str) or not doc_id:
        raise InputError("a Doc to match needs doc._.doc_id (a non-empty string)")
    if not doc.text.strip():
        raise InputError(f"document '{doc_id}' has no text")
    if doc.lang_ not in SUPPORTED_LANGS:
        raise InputError(
            f"document '{doc_id}': unknown language '{doc.lang_}' (supported: {', '.join(SUPPORTED_LANGS)})"
        )
    date = parse_date(doc._.doc_date, f"<doc {doc_id}>")
    out = Document(doc_id, doc.lang_, doc.text, doc._.doc_title, doc._.doc_lead, date)
    if doc._.doc_embedding is not None:
        out.embedding = np.asarray(doc._.doc_embedding, dtype=np.float32)
    return out


class DocEmbedder:
    """Sets doc._.doc_embedding: the L2-normalised embedding of the Doc's chosen fields."""

    def __init__(self, nlp: Language, name: str, embedder, fields: Sequence[str] = DEFAULT_FIELDS):
        self.name, self.embedder = name, embedder
        self.fields = list(check_fields(list(fields)))
        self.lang = nlp.lang

    def _vectors(self, docs: List[Doc]) -> np.ndarray:
        texts = [
            field_text(Document(doc._.doc_id or "", doc.lang_, doc.text, doc._.doc_title, doc._.doc_lead), self.fields)
            for doc in docs
        ]
        vecs = np.asarray(self.embedder.encode(texts, self.lang), dtype=np.float32)
        return vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)

    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc])))

    def pipe(self, docs, batch_size: int = 64):
        batch: List[Doc] = []
        for doc in docs:
            batch.append(doc)
            if len(batch) >= batch_size:
                yield from self._set(batch)
                batch = []
        if batch:
            yield from self._set(batch)

    def _set(self, batch: List[Doc]):
        nonempty = [d for d in batch if d.text.strip()]
        if nonempty:
            for doc, vec in zip(nonempty, self._vectors(nonempty)):
                doc._.doc_embedding = [float(x) for x in vec]
        for doc in batch:
            if not doc.text.strip():
                doc._.doc_embedding = None  # documented: an empty Doc gets no embedding
        return batch


@Language.factory("simalign_doc_matcher", default_config=DEFAULT_CONFIG)
def make_doc_matcher_component(nlp: Language, name: str, embedder, fields: List[str]) -> DocEmbedder:
    return DocEmbedder(nlp, name, embedder, fields)
