"""What the alignment components call on an aligner, so that any registered aligner (ours
or a third party's, see core/registries.py) plugs in: the Protocols below, which the components type
against and check a configured aligner with (an aligner need not inherit from them).

A sentence aligner (SentenceAligner) has `align(complex, simple, paragraph_links=None) -> beads`.
It may also have `align_batch(items)` (BatchSentenceAligner: the component hands it a whole batch,
so that it can encode every sentence of the batch at once), `is_trainable` with
`initialize(get_pairs)` and `update(pairs) -> loss` (TrainableAligner: then `spacy train` trains
it), and `to_bytes` / `from_bytes` / `to_disk` / `from_disk` (then a saved pipeline carries its
state). A paragraph aligner (ParagraphAligner) has `align_paragraphs(complex, simple) -> links`.

`SentenceAlignerBase` gives the batch behaviour to aligners built on sentence embeddings:
each batch starts from an empty encoder cache and encodes all its sentences in one call per
language, so a result depends only on its batch (the engines rely on that to write the same
bytes in one process, N processes or on Dask)."""

from typing import Callable, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from ..core.structures import Bead, ParagraphLink, Side, TrainingPair

BatchItem = Tuple[Side, Side, Optional[List[ParagraphLink]]]


@runtime_checkable
class SentenceAligner(Protocol):
    """Beads of one document pair, aligned inside the paragraph links when there are any."""

    def align(
        self, complex: Side, simple: Side, paragraph_links: Optional[Sequence[ParagraphLink]] = None
    ) -> List[Bead]: ...


@runtime_checkable
class BatchSentenceAligner(SentenceAligner, Protocol):
    """A sentence aligner that aligns a batch of pairs at once."""

    def align_batch(self, items: Sequence[BatchItem]) -> List[List[Bead]]: ...


@runtime_checkable
class TrainableAligner(Protocol):
    """A sentence aligner that learns from gold pairs (`spacy train` calls these)."""

    is_trainable: bool

    def initialize(self, get_pairs: Callable[[], List[TrainingPair]], **kwargs) -> None: ...

    def update(self, pairs: Sequence[TrainingPair]) -> float: ...


@runtime_checkable
class ParagraphAligner(Protocol):
    """Paragraph links of one document pair."""

    def align_paragraphs(self, complex: Side, simple: Side) -> List[ParagraphLink]: ...


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


def align_batch(aligner: SentenceAligner, items: Sequence[BatchItem]) -> List[List[Bead]]:
    """Beads of each (complex, simple, paragraph links) item, through the aligner's own
    `align_batch` when it has one; an empty side gives no beads."""
    if isinstance(aligner, BatchSentenceAligner):
        return aligner.align_batch(items)
    return [aligner.align(c, s, links) if len(c) and len(s) else [] for c, s, links in items]
