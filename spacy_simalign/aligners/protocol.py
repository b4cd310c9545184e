"""What the alignment components call on an aligner, so that any registered aligner (ours
or a third party's, see registry.py) plugs in.

A sentence aligner has `align(complex: Side, simple: Side, paragraph_links=None) -> beads`.
It may also have `align_batch(items)` (the component hands it a whole batch, so that it
can encode every sentence of the batch at once), `is_trainable` with `initialize(get_pairs)`
and `update(pairs) -> loss` (then `spacy train` trains it), and `to_bytes` / `from_bytes` /
`to_disk` / `from_disk` (then a saved pipeline carries its state). A paragraph aligner has
`align_paragraphs(complex: Side, simple: Side) -> paragraph links`.

`SentenceAlignerBase` gives the batch behaviour to aligners built on sentence embeddings:
each batch starts from an empty encoder cache and encodes all its sentences in one call per
language, so a result depends only on its batch (the engines rely on that to write the same
bytes in one process, N processes or on Dask)."""

from typing import Dict, List, Optional, Sequence, Tuple

from ..structures import Bead, ParagraphLink, Side

BatchItem = Tuple[Side, Side, Optional[List[ParagraphLink]]]


def prime_encoder(encoder, sides: Sequence[Side]) -> None:
    """Empty the encoder's cache, then encode every sentence of `sides` in one call per
    language (first-seen order)."""
    clear = getattr(encoder, "clear_cache", None)
    if clear is not None:
        clear()
    by_lang: Dict[str, Dict[str, None]] = {}
    for side in sides:
        by_lang.setdefault(side.lang, {}).update(dict.fromkeys(side.sentences))
    for lang, texts in by_lang.items():
        if texts:
            encoder.encode(list(texts), lang)


class SentenceAlignerBase:
    """Batch alignment with per-batch encoder priming; subclasses implement `align`."""

    is_trainable = False

    def encoders(self) -> List:
        """The sentence encoders (EmbeddingSimilarity) to prime per batch."""
        return []

    def align(
        self, complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None
    ) -> List[Bead]:
        raise NotImplementedError

    def align_batch(self, items: Sequence[BatchItem]) -> List[List[Bead]]:
        sides = [side for c, s, _ in items for side in (c, s)]
        encoders = {id(e): e for e in self.encoders() if hasattr(e, "encode")}
        for encoder in encoders.values():
            prime_encoder(encoder, sides)
        try:
            return [self.align(c, s, links) if len(c) and len(s) else [] for c, s, links in items]
        finally:
            for encoder in encoders.values():
                clear = getattr(encoder, "clear_cache", None)
                if clear is not None:
                    clear()


def align_batch(aligner, items: Sequence[BatchItem]) -> List[List[Bead]]:
    """Beads of each (complex, simple, paragraph links) item, through the aligner's own
    `align_batch` when it has one; an empty side gives no beads."""
    if hasattr(aligner, "align_batch"):
        return aligner.align_batch(items)
    return [aligner.align(c, s, links) if len(c) and len(s) else [] for c, s, links in items]
