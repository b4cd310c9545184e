"""`spacy_simalign.structures`, as third-party aligners import `Bead` and `Side`: the same module as
core/structures.py (the plain data every aligner shares)."""

import sys

from .core import structures as _structures

sys.modules[__name__] = _structures
