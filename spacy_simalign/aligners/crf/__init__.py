"""The neural CRF sentence aligner (Jiang et al. 2020), rebuilt for the CPU: candidate
labels, cross-lingual pair features, exact CRF inference in numpy, both directions combined
into n:m beads, splits and merges then chosen as units (bead_decoder.py).
`CRFAligner.default().align(complex_side, simple_side)`; registered as
`spacy-simalign.CRFAligner.v3` (v2 without the word floor of summaries); trained by `train.CRFTrainer`."""
