"""Measuring alignments with the metrics of aligners/scoring.py: scoring an alignment file against gold
(files.py), the statistics of an aligned comparable corpus (stats.py) and the segmentation's
boundary metrics (segmentation.py); for the experiments of project/: cross-validation folds
(crossval.py), seeded CRF training runs (training_runs.py), the pooled tally with its error
analysis (tally.py) and the scripts' table files (report.py)."""
