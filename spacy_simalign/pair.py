"""`spacy_simalign.pair`, as the README imports it: the same module as pipeline/pair.py (the Doc pair)."""

import sys

from .pipeline import pair as _pair

sys.modules[__name__] = _pair
