"""`spacy_simalign.pair`, as the README imports it: the same module as pipeline/doc_pair.py (the Doc pair)."""

import sys

from .pipeline import doc_pair as _pair

sys.modules[__name__] = _pair
