"""The plugin's own registries (made the way spacy-llm makes its own): users plug in
sentence-similarity backends with `@registry.simalign_similarity(...)` or through the
`spacy_simalign_similarity` entry-point group."""
from spacy.util import registry

if not hasattr(registry, "simalign_similarity"):
    registry.create("simalign_similarity", entry_points=True)

similarity_registry = registry.simalign_similarity
