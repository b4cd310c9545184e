"""The bound on what one text may cost the similarity signals.

A sentence is kept exactly, whatever its length (the Doc pair, the output files), but what it
contributes to the sentence encoders (USE, sentence-transformers) and to the CRF's pair TF-IDF
is its first MAX_TEXT_CHARS characters. The encoders' memory grows with the length of a text
(USE: about 5 GB for one sentence of 1 MB, 18 GB for 5 MB), and a sentence of a million
characters is a conversion error (a whole document in one sentence), not a sentence whose end
decides an alignment. The longest sentence of the DEplain-web dev pairs has 488 characters,
of the Text+Berg dev pairs 676: below the cap, results are the same bytes as without it."""

MAX_TEXT_CHARS = 20_000


def capped(text: str) -> str:
    """The part of `text` the encoders and TF-IDF features see: its first MAX_TEXT_CHARS characters."""
    return text if len(text) <= MAX_TEXT_CHARS else text[:MAX_TEXT_CHARS]
