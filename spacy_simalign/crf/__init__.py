"""The neural CRF sentence aligner (Jiang et al. 2020), rebuilt for the CPU: candidate
labels, cross-lingual pair features, exact CRF inference in torch, both directions
combined into n:m beads. `CRFAligner.default().align(complex_side, simple_side)`."""
from .aligner import DEFAULT_CONFIG, CRFAligner
from .train import GoldPair, train_aligner

__all__ = ["CRFAligner", "DEFAULT_CONFIG", "GoldPair", "train_aligner"]
