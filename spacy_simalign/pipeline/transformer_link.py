"""The sentence aligner's link to a spacy-transformers `transformer` component (configs/
transformer.cfg): its model is a TransformerListener (spacy-transformers.TransformerListener.v1,
one vector per token), and each sentence of a Doc pair gets the mean of its tokens' vectors.
The transformer encodes the pair sentence by sentence (spacy-transformers.sent_spans.v1: a Doc
pair's sentences never cross from one side into the other, make_pair starts the simple side with
a sentence); the sentences pooled here are exactly those of each side's `side_of`.

In training, the gradient of the CRF's loss with respect to each sentence vector goes back
through the mean to the tokens and through the listener's backprop to the transformer, whose
own finish_update then steps it. A sentence longer than the model's window is cut to it by
spacy-transformers (its tokens past the window get no vector and are left out of the mean),
which training says once."""

import warnings
from typing import Callable, List, Sequence, Tuple

import numpy as np
from spacy.tokens import Doc

from . import doc_pair as pair

TokenRanges = List[Tuple[int, int]]

_warned_cut = False


def sentence_ranges(doc: Doc) -> Tuple[TokenRanges, TokenRanges]:
    """The token ranges (start, end) of the (complex, simple) sentences of a Doc pair, in the
    order of side_of's sentences: from the sentence offsets where the segmenter or the given
    sentences set them, else the sides' sentence Spans."""
    info = doc._.pair_info
    out = []
    for k, name in enumerate(pair.SIDE_NAMES):
        offsets = (info.get("offsets") or [None, None])[k]
        if offsets is None:
            out.append([(s.start, s.end) for s in pair.side_sents(doc, name)])
            continue
        span = pair.side_span(doc, name)
        ranges = []
        for para in offsets:
            for start, end in para:
                sent = doc.char_span(span.start_char + start, span.start_char + end, alignment_mode="expand")
                ranges.append((sent.start, sent.end) if sent is not None else (span.start, span.start))
        out.append(ranges)
    return out[0], out[1]


def pooled(tokens: np.ndarray, doc: Doc, ranges: TokenRanges) -> Tuple[np.ndarray, List[np.ndarray], bool]:
    """(one mean vector per sentence, the tokens each mean is over, whether a sentence was cut):
    the tokens with a vector (whitespace and tokens past the model's window have none)."""
    has_vector = np.abs(tokens).sum(axis=1) > 0 if len(tokens) else np.zeros(0, dtype=bool)
    spaces = np.array([t.is_space for t in doc], dtype=bool)
    out = np.zeros((len(ranges), tokens.shape[1] if tokens.ndim == 2 else 0), dtype=np.float32)
    used, cut = [], False
    for k, (start, end) in enumerate(ranges):
        rows = np.arange(start, end)
        rows = rows[rows < len(has_vector)]
        keep = rows[has_vector[rows]]
        cut = cut or bool((~has_vector[rows] & ~spaces[rows]).any())
        if len(keep):
            out[k] = tokens[keep].mean(axis=0)
        used.append(keep)
    return out, used, cut


def unpooled(d_vectors: np.ndarray, used: Sequence[np.ndarray], n_tokens: int, width: int) -> np.ndarray:
    """The gradient of each token's vector from that of the sentence means it is in."""
    d_tokens = np.zeros((n_tokens, width), dtype=np.float32)
    for k, rows in enumerate(used):
        if len(rows):
            d_tokens[rows] += d_vectors[k] / len(rows)
    return d_tokens


def warn_cut_once() -> None:
    global _warned_cut
    if not _warned_cut:
        _warned_cut = True
        warnings.warn(
            "a sentence is longer than the transformer's window and was cut to it: its words past the "
            "window are not in its vector (a model with a longer window, or shorter sentences, keeps them)",
            UserWarning,
            stacklevel=3,
        )


class SentenceVectors:
    """The sentence vectors of Doc pairs from the listener model `model` (List[Doc] -> one
    token-vector array per Doc)."""

    def __init__(self, model):
        self.model = model

    def _pool(self, docs: Sequence[Doc], arrays) -> Tuple[List[Tuple[np.ndarray, np.ndarray]], list, bool]:
        vectors, used, cut = [], [], False
        for doc, array in zip(docs, arrays):
            tokens = self.model.ops.to_numpy(array)
            sides = []
            for ranges in sentence_ranges(doc):
                v, rows, was_cut = pooled(tokens, doc, ranges)
                sides.append(v)
                used.append((rows, tokens.shape))
                cut = cut or was_cut
            vectors.append((sides[0], sides[1]))
        return vectors, used, cut

    def predict(self, docs: Sequence[Doc]) -> List[Tuple[np.ndarray, np.ndarray]]:
        """The (complex, simple) sentence vectors of each Doc pair (the transformer has set doc._.trf_data)."""
        return self._pool(docs, self.model.predict(list(docs)))[0]

    def begin_update(self, docs: Sequence[Doc]) -> Tuple[List[Tuple[np.ndarray, np.ndarray]], Callable]:
        """(the sentence vectors of each Doc pair, backprop): backprop takes d loss / d vectors per
        Doc pair, as (complex, simple) arrays, and hands the tokens' gradient to the listener."""
        arrays, backprop_tokens = self.model.begin_update(list(docs))
        vectors, used, cut = self._pool(docs, arrays)
        if cut:
            warn_cut_once()

        def backprop(d_vectors: Sequence[Tuple[np.ndarray, np.ndarray]]):
            d_arrays = []
            for k, (d_complex, d_simple) in enumerate(d_vectors):
                (rows_c, shape), (rows_s, _) = used[2 * k], used[2 * k + 1]
                d_tokens = unpooled(d_complex, rows_c, shape[0], shape[1])
                d_tokens += unpooled(d_simple, rows_s, shape[0], shape[1])
                d_arrays.append(self.model.ops.asarray2f(d_tokens))
            return backprop_tokens(d_arrays)

        return vectors, backprop
