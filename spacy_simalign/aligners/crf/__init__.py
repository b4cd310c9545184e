"""The neural CRF sentence aligner (Jiang et al. 2020), rebuilt for the CPU: candidate
labels, cross-lingual pair features, exact CRF inference in numpy, both directions combined
into n:m beads, splits and merges then chosen as units (bead_decoder.py).
`make_crf_aligner_v3().align(complex_side, simple_side)` aligns as the default pipeline does
(`CRFAligner.default()`: the shipped weights without the word floor of summaries, as v2); registered
as `spacy-simalign.CRFAligner.v3` and `.v2`; trained by `train.CRFTrainer`."""
