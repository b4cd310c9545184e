"""The alignment scorer of `spacy train` and `nlp.evaluate`, registered as
`spacy-simalign.alignment_scorer.v1`: link, bead-text and paragraph-pair P/R/F1 of the
predicted Doc pairs against the reference ones (aligners.scoring.AlignmentScorer)."""

from typing import Callable, Dict, Iterable

from spacy.training import Example
from spacy.util import registry

from ..aligners.scoring import AlignmentScorer
from . import doc_pair as pair


def score_examples(examples: Iterable[Example], exclude_identical: bool = False, **kwargs) -> Dict[str, float]:
    """Link, bead-text and paragraph P/R/F1 of predicted vs reference Doc pairs, as flat
    `align_<metric>_<p|r|f>` keys; `exclude_identical`: link figures by Wiki-Manual's Task 1
    protocol (AlignmentScorer), for project/evaluate.py --exclude-identical."""
    scorer = AlignmentScorer(exclude_identical)
    for eg in examples:
        c, s = pair.side_of(eg.predicted, "complex"), pair.side_of(eg.predicted, "simple")
        scorer.add(
            eg.reference._.beads, eg.predicted._.beads, c.sentences, s.sentences, c.paragraph_of(), s.paragraph_of()
        )
    out = scorer.scores()
    return {
        f"align_{metric}_{k}": v
        for metric in ("link", "bead_text", "paragraph")
        for k, v in out.get(metric, {}).items()
    }


@registry.scorers("spacy-simalign.alignment_scorer.v1")
def make_alignment_scorer() -> Callable[..., Dict[str, float]]:
    return score_examples
