"""The alignment components, registered as spaCy factories through entry points:
`simalign_paragraph_aligner` (paragraph_aligner.py) and `simalign_sentence_aligner`
(sentence_aligner.py), each with an injected aligner from the `simalign_aligners` registry;
`scorer.py` holds the registered alignment scorer. (The segmenter, the document matcher and
the anonymiser live with their subjects: segmentation/, docmatch/, corpus/.)"""
