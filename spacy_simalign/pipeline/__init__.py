"""The spaCy side: the Doc pair (doc_pair.py) and the components registered as spaCy factories through
entry points: `simalign_segmenter` (segmenter.py), `simalign_paragraph_aligner` (paragraph_aligner.py),
`simalign_sentence_aligner` (sentence_aligner.py), `simalign_doc_matcher` (doc_matcher.py) and
`simalign_anonymiser` (anonymiser.py); the registered scorer (scorer.py), the corpus reader for
`spacy train` (readers.py) and the pipelines the commands build (build.py)."""
