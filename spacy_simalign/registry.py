"""The plugin's own registries (made the way spacy-llm makes its own), each open to third
parties through an entry-point group:

- `simalign_similarity` (group `spacy_simalign_similarity`): sentence-similarity backends,
  `@simalign_similarity = "spacy-simalign.USESimilarity.v1"` in a config.
- `simalign_aligners` (group `spacy_simalign_aligners`): sentence and paragraph aligners,
  `@simalign_aligners = "spacy-simalign.CRFAligner.v1"`; the alignment components take one
  as their `aligner` sub-config (see aligner_protocol.py for what an aligner implements).

Entry points make a name resolvable without importing its module first, so a run imports
only the aligners and backends its config names. The registries hang on confection's
registry class, which spaCy's and thinc's extend: configs resolved by spaCy find them, and
registering an aligner does not import spaCy."""
import catalogue
from confection import registry

for _name in ("similarity", "aligners"):
    # made with catalogue directly so that the entry-point group is spacy_simalign_<name>
    # (spaCy's registry.create would name it thinc_<name>)
    if not hasattr(registry, f"simalign_{_name}"):
        setattr(registry, f"simalign_{_name}", catalogue.create("spacy_simalign", _name, entry_points=True))

similarity_registry = registry.simalign_similarity
aligner_registry = registry.simalign_aligners
