"""spacy-simalign: align two versions of a text (complex/simple, or two languages) with spaCy.

Components, architectures and readers are registered through entry points in
setup.cfg, so importing this package is not needed for `nlp.add_pipe`.
"""

__version__ = "0.1.0"
