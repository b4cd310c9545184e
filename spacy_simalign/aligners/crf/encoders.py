"""The sentence encoder a CRF weights folder names (config.json "encoder"): the registered
backend its saved spec stands for. Saved weights and `amsterdam --similarity` name a backend by
the short spec the backend records (`SimilarityBackend.spec`); configs name the registered
function itself. This is the one table from the one to the other."""

import os

# spec -> registered similarity backend (built with its defaults, which the spec stands for)
SAVED_SPECS = {
    "tfidf": "spacy-simalign.TfidfSimilarity.v1",
    "c3g": "spacy-simalign.CharNgramSimilarity.v1",
    "jaccard": "spacy-simalign.JaccardSimilarity.v1",
    "use": "spacy-simalign.USESimilarity.v1",
}
MODEL_FOLDER = "spacy-simalign.SentenceTransformerSimilarity.v1"


def similarity_from_spec(spec: str):
    """The backend of a saved spec (tfidf, c3g, jaccard, use), of a sentence-transformers model
    folder, or of a registered name (spacy-simalign.X.v1)."""
    from ...core.registries import similarity_registry

    if spec in SAVED_SPECS:
        return similarity_registry.get(SAVED_SPECS[spec])()
    if os.path.isdir(spec):
        return similarity_registry.get(MODEL_FOLDER)(spec)
    if os.sep in spec or spec.startswith("."):  # a path, not a registered name
        from ...core.errors import InputError

        raise InputError(f"sentence-transformers model folder not found: {spec}")
    return similarity_registry.get(spec)()
