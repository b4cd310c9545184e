"""The neural CRF sentence aligner (Jiang et al. 2020), rebuilt for the CPU: candidate
labels, cross-lingual pair features, exact CRF inference in numpy, both directions combined
into n:m beads, splits and merges then chosen as units (bead_decoder.py).
`make_crf_aligner_v3().align(complex_side, simple_side)` and `CRFAligner.default()` (the shipped
weights) align as the default pipeline does, with the word floor of summaries; registered as
`spacy-simalign.CRFAligner.v3` and `.v2` (without the floor), whose settings are declared once, in
the blocks of aligner_settings.py; trained by `train.CRFTrainer`."""
