"""The one lower-cased word tokenizer of every lexical signal (TF-IDF, MASSAlign's model, the
CRF's pair TF-IDF, Klexikon's ROUGE, document matching): runs of word characters."""

import re
from typing import List

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> List[str]:
    return _WORD.findall(text.lower())
