"""`simalign_sentence_aligner`: aligns the sentences of Doc pairs into n:m beads with an
injected sentence aligner (the neural CRF by default; MASSAlign, CATS, TF-IDF, 20min-XD's
intersection or any registered aligner) and writes them to `doc._.alignment_data` (read
back as `doc._.beads`).

It is a TrainablePipe whose learning happens in the aligner: `spacy train` calls
`initialize` and `update`, which hand the gold pairs of the Examples to the aligner's own
`initialize` / `update` (for the CRF: crf.train.CRFTrainer, the same trainer as
project/train_crf.py). spaCy's optimizer is not used ([training.optimizer] is ignored; the
aligner's config holds the learning rate). `pipe` aligns a batch at once: the aligner primes
its sentence encoder with every sentence of the batch (aligners/protocol.py).

With a `model` (configs/transformer.cfg: a spacy-transformers TransformerListener), the CRF's
cosine column is that of the sentence vectors of an earlier `transformer` component, which
learns with the CRF: transformer_link.py pools them, crf/pair_scores.py scores with them, and
crf/listened_training.py trains the CRF and returns the vectors' gradient to the transformer.
spaCy's optimizer steps the transformer."""

import warnings
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import srsly
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.util import SimpleFrozenList
from spacy.vocab import Vocab
from thinc.api import Config, Model
from thinc.types import Floats2d

from ..aligners.methods import DEFAULT_SENTENCE_METHOD, component_config
from ..aligners.protocol import SentenceAligner as SentenceAlignerProtocol
from ..aligners.protocol import TrainableAligner, align_batch
from ..core import registries as _registries  # noqa: F401  (creates the registries the config names)
from ..core.errors import InputError
from ..core.structures import Bead, TrainingPair
from . import doc_pair as pair
from .init_errors import InitializeInputError, initialize_errors
from .readers import PairCorpus
from .scorer import score_examples
from .transformer_checks import check_transformer_models  # noqa: F401  (registers the training check)

DEFAULT_CONFIG_STR = component_config(
    "sentence_aligner",
    """
[sentence_aligner]
use_paragraphs = true
scorer = {"@scorers":"spacy-simalign.alignment_scorer.v1"}
""",
    DEFAULT_SENTENCE_METHOD,
).to_str()  # the aligner: the default named method's (aligners/methods.py)
ALIGNER_FOLDER = "aligner"


class SentenceAligner(TrainablePipe):
    """Sentence alignment of Doc pairs with the injected `aligner` (aligners/protocol.py).

    use_paragraphs: align inside the links of an earlier simalign_paragraph_aligner (when it
        found any); otherwise the whole document is one block.
    The aligner's state (the CRF's weights) is saved with the pipeline (`to_disk`, `spacy
    package`) and, when found there, wins over the config's `weights`."""

    def __init__(
        self,
        vocab: Vocab,
        aligner: SentenceAlignerProtocol,
        name: str = "sentence_aligner",
        *,
        use_paragraphs: bool = True,
        scorer: Optional[Callable] = score_examples,
        model: Optional[Model] = None,
    ):
        if not isinstance(aligner, SentenceAlignerProtocol):
            raise ValueError(
                f"[{name}] the aligner is not a sentence aligner (no align method): "
                "use a sentence aligner such as spacy-simalign.CRFAligner.v3"
            )
        self.vocab, self.name, self.aligner, self.scorer = vocab, name, aligner, scorer
        self.use_paragraphs = use_paragraphs
        self.cfg = {"use_paragraphs": use_paragraphs}
        # no thinc model but a transformer's listener: the aligner learns by itself (spaCy then skips finish_update)
        self.model = model
        self.vectors = None if model is None else listened_vectors(model, aligner, name)
        pair.install_extensions()

    @property
    def is_trainable(self) -> bool:
        return bool(getattr(self.aligner, "is_trainable", False))

    def _learner(self) -> TrainableAligner:
        """The aligner as one that learns (is_trainable is true for it)."""
        if not isinstance(self.aligner, TrainableAligner):
            raise ValueError(f"[{self.name}] the aligner is trainable but has no initialize and update methods")
        return self.aligner

    # prediction ------------------------------------------------------------------------
    def _sides(self, doc: Doc):
        if doc._.pair_info is None:
            raise ValueError(
                f"[{self.name}] expects a Doc pair: build it with "
                "spacy_simalign.pipeline.doc_pair.make_pair(nlp, complex, simple)"
            )
        warn_if_unsegmented(doc, self.name)
        return pair.side_of(doc, "complex"), pair.side_of(doc, "simple"), self._paragraph_links(doc)

    def _paragraph_links(self, doc: Doc):
        """The links of an earlier paragraph aligner, when it found any and they are used."""
        return doc._.paragraph_alignment if (self.use_paragraphs and doc._.paragraph_alignment_data) else None

    def predict(self, docs: Iterable[Doc]) -> List[List[Bead]]:
        """The beads of each Doc pair, the batch aligned at once."""
        docs = list(docs)
        items = [self._sides(doc) for doc in docs]
        if self.vectors is None:
            return align_batch(self.aligner, items)
        from ..aligners.crf.pair_scores import align_batch_with_vectors

        return align_batch_with_vectors(self.aligner, items, self.vectors.predict(docs))

    def set_annotations(self, docs: Iterable[Doc], beads: Sequence[List[Bead]]) -> None:
        for doc, doc_beads in zip(docs, beads):
            pair.set_beads(doc, doc_beads)

    # training --------------------------------------------------------------------------
    def training_pair(self, eg: Example) -> TrainingPair:
        """What the aligner learns from one Example: the reference Doc's sides (the gold indices
        refer to them) with their gold beads, and the paragraph links found on the predicted Doc."""
        complex_side, simple_side, _ = self._sides(eg.reference)
        return TrainingPair(
            complex_side,
            simple_side,
            list(eg.reference._.beads),
            self._paragraph_links(eg.predicted),
            eg.reference._.pair_id or "",
        )

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        wide_data: Optional[str] = None,
    ) -> None:
        """Ready the aligner for training on the Examples. `wide_data` ([initialize.components.
        sentence_aligner], `spacy train --paths.wide`): gold of other domains (pair JSONL, a DocBin
        of Doc pairs or a folder of them) on which, with the training documents, a fresh CRF first
        trains the wide CRF of a pair, as the shipped weights are (crf/choice.py); null or "": none.
        Bad input is an InputError that `spacy train` prints as one message (init_errors.py)."""
        validate_get_examples(get_examples, "SentenceAligner.initialize")
        with initialize_errors():
            self._initialize(get_examples, nlp, wide_data)

    def _initialize(self, get_examples, nlp: Optional[Language], wide_data: Optional[str]) -> None:
        if wide_data and not getattr(self.aligner, "wide_allowed", False):
            raise InputError(
                f"[{self.name}] wide_data: this aligner has no wide CRF to train (the CRF with wide = true has)"
            )
        if not self.is_trainable:
            return
        if self.vectors is not None and not any(p.links for p in map(self.training_pair, get_examples())):
            raise InputError(
                f"[{self.name}] the training gold holds no links: the transformer learns from linked sentences"
            )

        def get_pairs():
            return [self.training_pair(eg) for eg in get_examples()]

        if not wide_data:  # any trainable aligner; only the CRF takes wide_pairs
            self._learner().initialize(get_pairs)
            return
        if nlp is None:
            raise ValueError(f"[{self.name}] wide_data is read with the pipeline: pass nlp to initialize")
        wide_pairs = [self.training_pair(eg) for eg in PairCorpus(wide_data)(nlp)]
        if not wide_pairs:
            raise InputError("no gold documents in the wide data", wide_data)
        self._learner().initialize(get_pairs, wide_pairs=wide_pairs)

    def update(
        self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None, losses: Optional[Dict[str, float]] = None
    ) -> Dict[str, float]:
        """One training step of the aligner on the batch's gold pairs (`sgd` is not used)."""
        losses = {} if losses is None else losses
        losses.setdefault(self.name, 0.0)
        if self.is_trainable:
            examples = list(examples)
            validate_examples(examples, "SentenceAligner.update")
            pairs = [self.training_pair(eg) for eg in examples]
            if self.vectors is None:
                losses[self.name] += float(self._learner().update(pairs))
                return losses
            from ..aligners.crf.trainable import training_module

            vectors, backprop = self.vectors.begin_update([eg.predicted for eg in examples])
            loss, d_vectors = training_module("listened_training").listened_update(self.aligner, pairs, vectors)
            backprop(d_vectors)
            losses[self.name] += float(loss)
        return losses

    def use_params(self, params: dict):
        """Nothing to swap: spaCy's optimizer holds no averages of the aligner's weights."""
        yield

    def finish_update(self, sgd) -> None:
        """The aligner already stepped in `update`."""

    def add_label(self, label: str) -> int:
        raise NotImplementedError(f"[{self.name}] has no labels")

    # serialization ---------------------------------------------------------------------
    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        state = self.aligner.to_bytes() if hasattr(self.aligner, "to_bytes") else None
        return srsly.msgpack_dumps({"cfg": self.cfg, "aligner": state})

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()) -> "SentenceAligner":
        msg = srsly.msgpack_loads(bytes_data)
        if msg.get("aligner") is not None and hasattr(self.aligner, "from_bytes"):
            self.aligner.from_bytes(msg["aligner"])
        return self

    def to_disk(self, path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self.cfg)
        if hasattr(self.aligner, "to_disk"):
            self.aligner.to_disk(path / ALIGNER_FOLDER)

    def from_disk(self, path, *, exclude: Iterable[str] = SimpleFrozenList()) -> "SentenceAligner":
        folder = Path(path) / ALIGNER_FOLDER
        if folder.is_dir() and hasattr(self.aligner, "from_disk"):
            self.aligner.from_disk(folder)
        return self


_warned_unsegmented = False


def warn_if_unsegmented(doc: Doc, name: str) -> None:
    """Warn (once per process) when a side given as raw text reaches the aligner with no
    sentence boundaries set by anyone (no simalign_segmenter, parser or senter before it):
    the whole side would be aligned as one sentence, which is almost never what was meant."""
    global _warned_unsegmented
    if _warned_unsegmented:
        return
    info = doc._.pair_info
    for k, view in enumerate(pair.sides(doc)):
        if view.presegmented or (info.get("offsets") or [None, None])[k] is not None or len(view.span) < 2:
            continue
        if all(token.is_sent_start is None for token in view.span[1:]):
            _warned_unsegmented = True
            warnings.warn(
                f"[{name}] the {view.name} side of Doc pair {doc._.pair_id or ''!r} is raw text that no "
                "segmenter split, so it is aligned as one sentence: add the segmenter before the aligner, "
                'nlp.add_pipe("simalign_segmenter", first=True)',
                UserWarning,
                stacklevel=3,
            )
            return


@Language.factory(
    "simalign_sentence_aligner",
    default_config=Config().from_str(DEFAULT_CONFIG_STR)["sentence_aligner"],
    assigns=["doc._.alignment_data"],
    requires=["token.is_sent_start"],
    default_score_weights={"align_link_f": 0.5, "align_bead_text_f": 0.5},
)
def make_sentence_aligner(
    nlp: Language,
    name: str,
    aligner,
    use_paragraphs: bool,
    scorer: Optional[Callable],
    model: Optional[Model[List[Doc], List[Floats2d]]] = None,
) -> SentenceAligner:
    """Sentence alignment of Doc pairs (default: the neural CRF with the shipped weights).
    model: none, or a spacy-transformers TransformerListener.v1 whose sentence vectors give the
    CRF its cosine column and learn with it (configs/transformer.cfg)."""
    return SentenceAligner(nlp.vocab, aligner, name, use_paragraphs=use_paragraphs, scorer=scorer, model=model)


def listened_vectors(model, aligner, name: str):
    """The sentence vectors of the transformer `model` listens to, for a CRF aligner (the one
    aligner with a cosine column to give them); its wide CRF, which reads the fixed encoder's
    cosine, is off."""
    if not (hasattr(aligner, "featurize") and hasattr(aligner, "align_input")):
        raise InitializeInputError(
            InputError(
                f"[{name}] model: a transformer's sentence vectors are read by the CRF aligner "
                "(spacy-simalign.CRFAligner.v3), not by this aligner"
            )
        )
    from .transformer_link import SentenceVectors

    aligner.wide_allowed = False
    return SentenceVectors(model)
