"""Cross-lingual document matching (the 20min-XD method): embed each document from chosen
fields, find candidates within a date window with a nearest-neighbour index, pick pairs with
a strategy (above-threshold, best-source, best-target, union, intersection) and a threshold
calibrated on gold pairs."""
