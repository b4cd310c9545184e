"""The wide CRF and the per-document choice between it and the domain's own CRF.

The shipped weights are two CRFs: the DEplain-web one (best on the web portal and the bible, the
domain of the in-domain CV) and a "wide" one trained on DEplain-web dev and the Simple German
Corpus websites (sgc-dev) as ordinary gold, better on domains neither has seen but worse in the
DEplain-web CV. A document is aligned by the wide CRF only when it is surer of it: its mean
per-simple-sentence entropy (unsure.py, `rank`'s score) lower by at least `wide_margin` nats than
the other CRF's. Both CRFs read the same features, so the featurizer's settings must agree."""

from typing import Any, Callable, Dict, Optional

from ...core.errors import InputError
from .parts import AlignerParts

WIDE_FOLDER = "wide"  # the wide CRF's weights folder inside the weights folder
# config.json's record that a wide CRF was saved in WIDE_FOLDER: a folder that records one and lacks
# it is refused (folders saved without the record, with one CRF or before it, load either way)
WIDE_RECORD = "wide_crf"
# the featurizer's settings (aligner.featurizer): the two CRFs read one PairInput
SHARED_SETTINGS = ("encoder", "top_k", "top_k_lexical", "band", "neighbours")


def wide_is_surer(own_score: float, wide_score: float, margin: float) -> bool:
    """Whether the wide CRF is surer of a document than the own CRF by `margin` nats, from their
    document scores (unsure.document_score of the simple->complex marginals)."""
    return wide_score < own_score - margin


def check_shared(own: Dict[str, Any], wide: Dict[str, Any], where: str) -> None:
    """The wide CRF must read the features the own CRF reads (SHARED_SETTINGS); `where` names the
    weights folder (or the pipeline) in the error."""
    differ = [k for k in SHARED_SETTINGS if own.get(k) != wide.get(k)]
    if differ:
        raise InputError(
            f"the wide CRF in {where} reads other features than its weights folder's CRF ({', '.join(differ)} differ)"
        )


class WideChoice:
    """The CRF aligner's wide CRF (a part of CRFAligner): attached by a loader and made on first use,
    so that aligning with the own CRF alone never reads it."""

    _wide: Any  # set by attach_wide too: typed as CRFAligner.__init__ types it

    def attach_wide(self: AlignerParts, loader: Optional[Callable[[Any], Any]]) -> None:
        """Give the aligner a wide CRF (choice.py), made by `loader(encoder)` on first use with this
        aligner's encoder (None: none)."""
        self._wide, self._wide_loader = None, loader

    @property
    def wide(self: AlignerParts) -> Optional[Any]:
        """The wide CRF of the per-document choice (choice.py), or None (also with wide = false,
        whatever the weights, bytes or folder it was loaded from hold)."""
        if self._wide_loader is None or not self.wide_allowed:
            return None
        if self._wide is None:
            self._wide = self._wide_loader(self.encoder)
            check_shared(self.config, self._wide.config, self.weights or "the pipeline")
        return self._wide
