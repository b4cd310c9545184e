"""Sentence-similarity backends (backends.py), registered in `simalign_similarity`: word and
character TF-IDF, Jaccard, MASSAlign's model, multilingual USE and any sentence-transformers folder."""
