"""The alignment components: `simalign_paragraph_aligner` and `simalign_sentence_aligner`.

Both read a Doc pair (spacy_simalign.pair) whose sides the segmenter has split, and
write plain data to its extensions: `doc._.paragraph_alignment` and `doc._.beads`.

The sentence aligner with method "crf" is trainable with `spacy train` (or `nlp.update`):
`initialize` builds or loads the CRF, `update` takes negative log-likelihood steps on the
gold beads of the reference Docs, `to_disk` / `from_disk` keep the CRF weights folder in
the pipeline folder, so `spacy.load` and `spacy package` carry the trained model."""
import random
import tempfile
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Optional, Tuple

import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.util import SimpleFrozenList
from thinc.api import Config

from . import methods, pair
from .scoring import AlignmentScorer
from .structures import Side

PARAGRAPH_CONFIG_STR = """
[paragraph_aligner]
method = "jiang"
"""

SENTENCE_CONFIG_STR = """
[sentence_aligner]
method = "crf"
use_paragraphs = true
weights = "shipped"
learn_rate = 0.01
cross_lingual_rate = 0.25
combination_epochs = 10
combination_holdout = 0.2
seed = 0

[sentence_aligner.crf]
"""

SHIPPED = "shipped"
CRF_FOLDER = "crf"


class ParagraphAligner:
    """Aligns the paragraphs of the two sides (Jiang et al. Alg. 1-4, MASSAlign, TF-IDF)."""

    def __init__(self, nlp: Language, name: str, method: str):
        self.name, self.method = name, method
        self._fn = methods.paragraph_method(method)
        pair.install_extensions()

    def __call__(self, doc: Doc) -> Doc:
        if doc._.pair_info is None:
            return doc
        links = self._fn(pair.side_of(doc, "complex"), pair.side_of(doc, "simple"))
        pair.set_paragraph_links(doc, links)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 32):
        for doc in docs:
            yield self(doc)


class SentenceAligner:
    """Aligns the sentences of the two sides with a named method into n:m beads.

    weights (method "crf" only):
      "shipped"  the weights that ship with the package: aligns at once; `spacy train`
                 fine-tunes them;
      a folder   a CRF weights folder (config.json + model.pt): the same;
      null       no weights: a fresh CRF that `nlp.initialize()` builds for training from
                 scratch. Calling the component before `initialize` (or before loading a
                 trained pipeline with `spacy.load`) raises a ValueError.
    Weights found in a pipeline folder (`from_disk`) always win over this setting, so a
    trained, packaged pipeline never looks for the path it was trained from.
    The lexical methods ("massalign", "cats-c3g", "tfidf", ...) have nothing to train:
    `initialize` and `update` leave them as they are.

    Training: the CRF is a torch model, stepped by the component's own Adam optimizer
    (`learn_rate`) inside `update`, one step per call; the thinc optimizer that spaCy
    passes (and [training.optimizer]) is ignored. `crf` holds CRFAligner config overrides
    for a fresh model (hidden, top_k, combination, ...). With the "learned" combination of
    the two directions, `initialize` on a fresh model first trains a CRF for
    `combination_epochs` on all but `combination_holdout` of the training documents and fits
    the combination on the held-out rest, as crf.train.train_aligner does."""

    # No thinc Model: spaCy's training loop reads `model` and skips components whose model is
    # None (no finish_update with its optimizer, no use_params); `is_trainable` makes the
    # console logger show this component's loss.
    model = None

    def __init__(self, nlp: Language, name: str, method: str, use_paragraphs: bool = True,
                 weights: Optional[str] = SHIPPED, learn_rate: float = 0.01, cross_lingual_rate: float = 0.25,
                 combination_epochs: int = 10, combination_holdout: float = 0.2, seed: int = 0,
                 crf: Optional[Dict[str, Any]] = None):
        self.name, self.method, self.use_paragraphs, self.weights = name, method, use_paragraphs, weights
        self.learn_rate, self.cross_lingual_rate, self.seed = learn_rate, cross_lingual_rate, seed
        self.combination_epochs, self.combination_holdout = combination_epochs, combination_holdout
        self.crf_config = dict(crf or {})
        pair.install_extensions()
        self._aligner = None      # CRFAligner, loaded lazily (weights given) or built by initialize
        self._optimizer = None
        self._rng = random.Random(seed)
        self._features: Dict[Tuple, Any] = {}  # PairInput by (sides, gold): features do not change with training
        if method == "crf":
            self._fn = None
        else:
            self._fn = methods.sentence_method(method, None)

    # the CRF ---------------------------------------------------------------------------
    @property
    def is_crf(self) -> bool:
        return self.method == "crf"

    @property
    def is_trainable(self) -> bool:
        return self.is_crf

    @property
    def aligner(self):
        """The CRFAligner; loads the configured weights on first use."""
        if self._aligner is None:
            if self.weights is None:
                raise ValueError(
                    f"[{self.name}] has no CRF weights: with weights = null the CRF is built by nlp.initialize() "
                    "and trained (spacy train); to align without training set weights = \"shipped\" (the "
                    "package's model) or a CRF weights folder, or spacy.load a trained pipeline")
            self._set_aligner(self._load_weights())
        return self._aligner

    def _load_weights(self):
        from .crf.aligner import CRFAligner

        if self.weights == SHIPPED:
            return CRFAligner.default()
        return CRFAligner.load(self.weights)

    def _set_aligner(self, aligner) -> None:
        self._aligner = aligner
        self._optimizer = None
        self._features.clear()

    # prediction ------------------------------------------------------------------------
    def _sides(self, doc: Doc) -> Tuple[Side, Side]:
        if doc._.pair_info is None:
            raise ValueError(f"[{self.name}] expects a Doc pair: build it with "
                             "spacy_simalign.pair.make_pair(nlp, complex, simple)")
        return pair.side_of(doc, "complex"), pair.side_of(doc, "simple")

    def _paragraph_links(self, doc: Doc):
        """The paragraph aligner's links, to align inside them; None (the whole document) when
        use_paragraphs is off, no paragraph aligner ran, or it found no link at all."""
        return doc._.paragraph_alignment if (self.use_paragraphs and doc._.paragraph_alignment_data) else None

    def __call__(self, doc: Doc) -> Doc:
        complex_side, simple_side = self._sides(doc)
        links = self._paragraph_links(doc)
        if not self.is_crf:
            beads = self._fn(complex_side, simple_side, links) if len(complex_side) and len(simple_side) else []
        else:
            aligner = self.aligner
            if len(complex_side) and len(simple_side):
                # no memo here: at inference each pair is seen once, and a memo would hold
                # thousands of pairs' features on a corpus run
                beads = aligner.align(complex_side, simple_side, links)
            else:
                beads = []
        pair.set_beads(doc, beads)
        return doc

    def pipe(self, docs: Iterable[Doc], batch_size: int = 32):
        for doc in docs:
            yield self(doc)

    def _featurize(self, complex_side: Side, simple_side: Side, links, gold):
        """Features of a training pair, memoised while the aligner stays the same (training
        re-reads the same documents every epoch; features do not depend on the weights)."""
        key = (tuple(complex_side.sentences), tuple(map(tuple, complex_side.paragraphs)), complex_side.lang,
               tuple(simple_side.sentences), tuple(map(tuple, simple_side.paragraphs)), simple_side.lang,
               None if links is None else tuple((tuple(p.complex), tuple(p.simple)) for p in links),
               None if gold is None else tuple(sorted(gold)))
        feats = self._features.get(key)
        if feats is None:
            feats = self.aligner.featurize(complex_side, simple_side, links, gold_links=gold)
            if len(self._features) >= 4096:
                self._features.clear()
            self._features[key] = feats
        return feats

    # training --------------------------------------------------------------------------
    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None) -> None:
        """Build a fresh CRF (weights = null) or load the configured weights, ready for
        `update`; with a fresh model and the learned combination, fit the combination of the
        two directions first (see the class docstring)."""
        validate_get_examples(get_examples, "SentenceAligner.initialize")
        if not self.is_crf:
            return
        import torch

        from .crf.aligner import CRFAligner
        from .crf.train import holdout_combination, holdout_split, set_seed

        self._rng = random.Random(self.seed)
        if self.weights is not None:
            self._set_aligner(self._load_weights())
            return
        set_seed(self.seed)
        aligner = CRFAligner(self.crf_config)
        self._set_aligner(aligner)
        examples = list(get_examples())
        if (aligner.config["combination"] == "learned" and self.combination_epochs > 0 and len(examples) >= 5
                and self.combination_holdout > 0):
            held, rest = holdout_split(len(examples), self.combination_holdout, self.seed)
            held_inputs = [self._training_input(examples[i]) for i in held]
            aligner.config["combination_weights"] = holdout_combination(
                self.crf_config, aligner.encoder, [self._featurize(*self._training_input(examples[i])) for i in rest],
                [self._featurize(c, s, links, None) for c, s, links, _ in held_inputs],
                [gold for *_, gold in held_inputs], self.combination_epochs, self.seed, lr=self.learn_rate,
                cross_lingual_rate=self.cross_lingual_rate)
        set_seed(self.seed)
        aligner.model = CRFAligner.build_model(aligner.config)
        aligner.model.eval()
        torch.manual_seed(self.seed)

    def _training_input(self, eg: Example):
        """(complex, simple, paragraph links, gold links) of an Example: the sides of the
        reference Doc, whose sentence indices the gold beads refer to."""
        complex_side, simple_side = self._sides(eg.reference)
        gold = {link for bead in eg.reference._.beads for link in bead.links()}
        return complex_side, simple_side, self._paragraph_links(eg.predicted), gold

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """One Adam step on the mean per-sentence NLL (both directions) of the batch's
        documents; `sgd` is ignored (see the class docstring)."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        if not self.is_crf:
            return losses
        import torch

        from .crf.threads import torch_threads
        from .crf.train import pair_loss

        if self._aligner is None and self.weights is None:
            raise ValueError(f"[{self.name}] update() before initialize(): call nlp.initialize(get_examples) first")
        aligner = self.aligner
        model = aligner.model
        if self._optimizer is None:
            self._optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad],
                                               lr=self.learn_rate)
        model.train()
        total, docs = None, 0
        with torch_threads(aligner.config["torch_threads"]):
            for eg in examples:
                c, s, links, gold = self._training_input(eg)
                if not len(c) or not len(s):
                    continue
                loss, _ = pair_loss(model, self._featurize(c, s, links, gold), self._rng, self.cross_lingual_rate)
                if loss is None:
                    continue
                total = loss if total is None else total + loss
                docs += 1
            if total is not None:
                self._optimizer.zero_grad()
                (total / docs).backward()
                self._optimizer.step()
                losses[self.name] += float(total.detach())
        model.eval()
        return losses

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        return score_examples(examples)

    # serialization ---------------------------------------------------------------------
    def _settings(self) -> Dict[str, Any]:
        return {"method": self.method, "has_crf": self._aligner is not None}

    def to_disk(self, path, *, exclude: Iterable[str] = SimpleFrozenList()) -> None:
        """cfg (JSON) and, for a loaded or trained CRF, its weights folder `crf/`."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        srsly.write_json(path / "cfg", self._settings())
        if self.is_crf and self._aligner is not None:
            self._aligner.save(path / CRF_FOLDER)

    def from_disk(self, path, *, exclude: Iterable[str] = SimpleFrozenList()) -> "SentenceAligner":
        path = Path(path)
        if self.is_crf and (path / CRF_FOLDER / "config.json").is_file():
            from .crf.aligner import CRFAligner

            self._set_aligner(CRFAligner.load(path / CRF_FOLDER))
        return self

    def to_bytes(self, *, exclude: Iterable[str] = SimpleFrozenList()) -> bytes:
        """The files of `to_disk`, packed: {relative path: bytes}."""
        with tempfile.TemporaryDirectory() as tmp:
            self.to_disk(tmp)
            files = {str(p.relative_to(tmp)): p.read_bytes() for p in sorted(Path(tmp).rglob("*")) if p.is_file()}
        return srsly.msgpack_dumps(files)

    def from_bytes(self, data: bytes, *, exclude: Iterable[str] = SimpleFrozenList()) -> "SentenceAligner":
        files = srsly.msgpack_loads(data)
        with tempfile.TemporaryDirectory() as tmp:
            for rel, content in files.items():
                target = Path(tmp) / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            self.from_disk(tmp)
        return self


def score_examples(examples: Iterable[Example]) -> Dict[str, float]:
    """Link, bead-text and paragraph P/R/F1 of predicted vs reference Doc pairs."""
    scorer = AlignmentScorer()
    for eg in examples:
        pred, gold = eg.predicted, eg.reference
        c, s = pair.side_of(pred, "complex"), pair.side_of(pred, "simple")
        scorer.add(gold._.beads, pred._.beads, c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of())
    out = scorer.scores()
    flat = {}
    for metric in ("link", "bead_text", "paragraph"):
        for k, v in out.get(metric, {}).items():
            flat[f"align_{metric}_{k}"] = v
    return flat


@Language.factory("simalign_paragraph_aligner", default_config=Config().from_str(PARAGRAPH_CONFIG_STR)["paragraph_aligner"])
def make_paragraph_aligner(nlp: Language, name: str, method: str) -> ParagraphAligner:
    return ParagraphAligner(nlp, name, method)


@Language.factory("simalign_sentence_aligner",
                  default_config=Config().from_str(SENTENCE_CONFIG_STR)["sentence_aligner"],
                  default_score_weights={"align_link_f": 0.5, "align_bead_text_f": 0.5})
def make_sentence_aligner(nlp: Language, name: str, method: str, use_paragraphs: bool, weights: Optional[str],
                          learn_rate: float, cross_lingual_rate: float, combination_epochs: int,
                          combination_holdout: float, seed: int, crf: Dict[str, Any]) -> SentenceAligner:
    """Sentence alignment of Doc pairs: the neural CRF (trainable) or a lexical method."""
    return SentenceAligner(nlp, name, method, use_paragraphs, weights, learn_rate, cross_lingual_rate,
                           combination_epochs, combination_holdout, seed, crf)
