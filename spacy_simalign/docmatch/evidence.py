"""The second stage of document matching: sentence-level evidence for a candidate pair. Two
reports of one story share many sentences' content even when their titles and leads differ,
while two stories on one topic share words but few facts. The evidence of (a, b) is the mean,
over the sentences of a, of each one's best cosine with a sentence of b, averaged with the
same from b's side (x100, like the first stage). It is computed on candidate pairs only, from
the title and the first `max_sentences` sentences of each document, each document encoded
once while it is needed (a bounded cache), so memory does not grow with the collections."""

from collections import OrderedDict
from typing import Dict, List, Sequence

import numpy as np

from ..core.registries import doc_reranker_registry, lookup, short_names
from ..formats.documents import Document
from ..segmentation.sides import side_from_text

NO_RERANK = "none"  # the matcher's `rerank` that switches the second stage off
ENCODE_DOCS = 256  # documents whose sentences are encoded in one encoder call


def sentences_of(doc: Document, max_sentences: int) -> List[str]:
    """The title (if any) and the first sentences of the text, as our segmenter splits them."""
    sents = side_from_text(doc.text, doc.lang).sentences[:max_sentences]
    return ([doc.title] if doc.title and doc.title.strip() else []) + sents or [doc.text[:1000]]


def rerank_names() -> List[str]:
    """What a matcher's `rerank` may name: none, or a registered second stage's short name."""
    return [NO_RERANK] + list(short_names(doc_reranker_registry))


def get_reranker(name: str):
    """The registered second stage of a short or registered name (built with the matcher's
    embedder and max_sentences; its `score` gives the evidence x100 of candidate pairs)."""
    return lookup(doc_reranker_registry, name, "rerank")


@doc_reranker_registry("spacy-simalign.SentencesRerank.v1")
class SentenceEvidence:
    """Sentence-level evidence of candidate pairs (see the module docstring)."""

    def __init__(self, embedder, max_sentences: int = 20, cache_docs: int = 20_000):
        self.embedder, self.max_sentences, self.cache_docs = embedder, max_sentences, cache_docs

    def _vectors(self, docs: Sequence[Document], needed: Sequence[int], cache: "OrderedDict") -> None:
        """Encode the sentences of the needed documents not in `cache`, a batch of documents at a time."""
        missing = []
        for i in dict.fromkeys(needed):
            if i in cache:
                cache.move_to_end(i)  # used again: evicted last
            else:
                missing.append(i)
        for start in range(0, len(missing), ENCODE_DOCS):
            chunk = missing[start : start + ENCODE_DOCS]
            by_lang: Dict[str, List[int]] = {}
            for i in chunk:
                by_lang.setdefault(docs[i].lang, []).append(i)
            for lang, members in by_lang.items():
                texts = [sentences_of(docs[i], self.max_sentences) for i in members]
                flat = [s for sents in texts for s in sents]
                vecs = np.asarray(self.embedder.encode(flat, lang), dtype=np.float32)
                vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
                pos = 0
                for i, sents in zip(members, texts):
                    cache[i] = vecs[pos : pos + len(sents)].astype(np.float16)
                    pos += len(sents)
        while len(cache) > self.cache_docs:
            cache.popitem(last=False)

    def score(
        self, source: Sequence[Document], target: Sequence[Document], src: np.ndarray, tgt: np.ndarray
    ) -> np.ndarray:
        """Evidence x100 of each candidate pair (src[k], tgt[k]), in candidate order."""
        out = np.zeros(len(src), dtype=np.float32)
        if not len(src):
            return out
        order = np.argsort(src, kind="stable")  # each source's candidates together: its vectors once
        src_cache: "OrderedDict" = OrderedDict()
        tgt_cache: "OrderedDict" = OrderedDict()
        step = max(1, self.cache_docs // 4)
        for start in range(0, len(order), step):
            rows = order[start : start + step]
            self._vectors(source, src[rows].tolist(), src_cache)
            self._vectors(target, tgt[rows].tolist(), tgt_cache)
            for k in rows:
                a = src_cache[src[k]].astype(np.float32)
                b = tgt_cache[tgt[k]].astype(np.float32)
                sims = a @ b.T
                out[k] = 50.0 * (sims.max(axis=1).mean() + sims.max(axis=0).mean())
        return out
