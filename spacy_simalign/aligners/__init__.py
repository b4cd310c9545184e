"""The aligners, on plain data (they read no files and build no spaCy pipelines): the protocol every
aligner follows (protocol.py), the named `--method` configs (methods.py), the lexical sentence aligners
(lexical_aligners.py: MASSAlign, CATS, TF-IDF), the paragraph aligners (paragraphs.py), the monotone bead decoder
for translations (bead_dp.py), the 20min-XD intersection (intersection.py), the neural CRF (crf/) and the
metrics an alignment is scored by against gold beads (scoring.py)."""
