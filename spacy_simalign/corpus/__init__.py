"""Corpus building: from two versions of documents to a clean, published sentence-pair
corpus (Amsterdam post-processing, Klexikon preparation, anonymisation, export)."""
