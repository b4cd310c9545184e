"""Measuring alignments with the metrics of aligners/scoring.py: scoring an alignment file against
gold (files.py), the pooled tally with its error analysis (tally.py, `evaluate --detail`), the
statistics of an aligned comparable corpus (corpus_stats.py) and the segmentation's boundary metrics
(segmentation.py)."""
