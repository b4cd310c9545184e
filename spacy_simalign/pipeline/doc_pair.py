"""The Doc pair: one spaCy Doc that holds both versions of a document.

The complex side's tokens come first, the simple side's after them; where the
simple side begins, which language each side is in and whether a side came
pre-segmented is plain data in `doc._.pair_info`; paragraphs are the span groups
"complex_paragraphs" / "simple_paragraphs"; the alignment is plain data in
`doc._.alignment_data`. Everything therefore survives DocBin(store_user_data=True)
and `to_disk`, and a pair works with `nlp.pipe` and spaCy `Example`s (the gold
alignment lives in the reference Doc's extensions). Rich views (the two sides as
Spans, beads, each sentence's aligned sentences) are getters on top.
"""

import bisect
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span

from ..core import caches
from ..core.errors import InputError
from ..core.structures import SUPPORTED_LANGS, Bead, ParagraphLink, Side
from ..formats.pair_jsonl import check_side
from ..startup.blank_pipelines import blank_language

SIDE_NAMES = ("complex", "simple")
PARAGRAPH_SEP = "\n\n"
SideInput = Union[str, Sequence[Sequence[str]]]


class SideView(NamedTuple):
    """Where a side lies in a Doc: name, Span, language, pre-segmented flag."""

    name: str
    span: Span
    lang: str
    presegmented: bool


def install_extensions() -> None:
    """Register the Doc/Span extensions once (guarded, as spacy-transformers does)."""
    for name in ("pair_info", "alignment_data", "paragraph_alignment_data"):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    doc_getters: Dict[str, Callable[[Doc], Any]] = {
        "is_pair": lambda doc: doc._.pair_info is not None,
        "pair_id": lambda doc: (doc._.pair_info or {}).get("id"),
        "complex_side": lambda doc: side_span(doc, "complex"),
        "simple_side": lambda doc: side_span(doc, "simple"),
        "complex_sents": lambda doc: side_sents(doc, "complex"),
        "simple_sents": lambda doc: side_sents(doc, "simple"),
        "beads": get_beads,
        "paragraph_alignment": get_paragraph_links,
    }
    for name, getter in doc_getters.items():
        if not Doc.has_extension(name):
            Doc.set_extension(name, getter=getter)
    span_getters: Dict[str, Callable[[Span], Any]] = {
        "side": span_side,
        "sent_index": sent_index,
        "aligned": aligned_sents,
    }
    for name, span_getter in span_getters.items():
        if not Span.has_extension(name):
            Span.set_extension(name, getter=span_getter)


def _supported(code: Optional[str]) -> str:
    """The language code, if the package supports it (else an InputError)."""
    if code is None or code not in SUPPORTED_LANGS:
        raise InputError(f"unknown language '{code}' (supported: {', '.join(SUPPORTED_LANGS)})")
    return code


def _tokenizer_for(lang: str):
    """The tokenizer of another language than the pipeline's (the simple side of a cross-lingual pair)."""
    return caches.shared("tokenizer", lang, lambda: blank_language(lang).tokenizer)


def _paragraph_list(value) -> List[List[str]]:
    """Given sentences as paragraphs: a flat list of sentences (as bertalign takes them) is one paragraph."""
    value = list(value)
    return [value] if value and all(isinstance(item, str) for item in value) else value


def _side_text(value: SideInput) -> Tuple[str, Optional[List[List[Tuple[int, int]]]]]:
    """Text of a side and, for pre-segmented input, the char offsets of each sentence per
    paragraph: sentences joined by a space, paragraphs by a blank line, each kept exactly."""
    if isinstance(value, str):
        return value, None
    value = _paragraph_list(value)
    parts, offsets, pos = [], [], 0
    for k, para in enumerate(value):
        if k:
            parts.append(PARAGRAPH_SEP)
            pos += len(PARAGRAPH_SEP)
        para_offsets = []
        for j, sent in enumerate(para):
            if j:
                parts.append(" ")
                pos += 1
            parts.append(sent)
            para_offsets.append((pos, pos + len(sent)))
            pos += len(sent)
        offsets.append(para_offsets)
    return "".join(parts), offsets


def make_pair(
    nlp: Language,
    complex: SideInput,
    simple: SideInput,
    lang: Optional[str] = None,
    lang_simple: Optional[str] = None,
    id: Optional[str] = None,
    gold: Optional[Iterable] = None,
) -> Doc:
    """Build a Doc pair. A side is raw text (paragraphs separated by blank lines; the
    segmenter splits it), a list of paragraphs, each a list of sentences, or a flat list of
    sentences (one paragraph); given sentences keep their boundaries exactly. Each side is
    tokenized by its own language's tokenizer."""
    install_extensions()
    lang = _supported(lang or nlp.lang)
    lang_simple = _supported(lang_simple or lang)
    words: List[str] = []
    spaces: List[bool] = []
    starts: List[Union[bool, int, None]] = []  # as Doc takes them: None where the segmenter decides
    info: Dict = {
        "id": id,
        "langs": [lang, lang_simple],
        "presegmented": [],
        "split": 0,
        "n_tokens": [0, 0],
        "offsets": [None, None],
    }
    paragraph_tokens: Dict[str, List[Tuple[int, int]]] = {}
    for name, value, code in (("complex", complex, lang), ("simple", simple, lang_simple)):
        if not isinstance(value, str):  # a pair file's own check: no empty paragraph or sentence
            check_side({name: {"paragraphs": _paragraph_list(value)}}, name, None, None)
        text, offsets = _side_text(value)
        tokenizer = nlp.tokenizer if code == nlp.lang else _tokenizer_for(code)
        side_doc = tokenizer(text)
        base = len(words)
        if name == "simple":
            info["split"] = base
            if words:
                spaces[-1] = True
        # one array of the side's tokens (a Token object per token costs most of a pair's build)
        orth, idx, space = side_doc.to_array(["ORTH", "IDX", "SPACY"]).T.tolist() if len(side_doc) else ([], [], [])
        side_starts: List[Optional[bool]] = [None] * len(side_doc)
        if offsets is not None:
            side_starts = [False] * len(side_doc)
            token_starts = idx
            char_to_token = {start: i for i, start in enumerate(token_starts)}
            paras = []
            for para in offsets:
                sent_toks = []
                for start, _end in para:
                    tok = char_to_token.get(start)
                    if tok is None:  # a sentence start inside a token: split at the nearest token start
                        tok = min(bisect.bisect_left(token_starts, start), len(side_doc) - 1)
                    side_starts[tok] = True
                    sent_toks.append(tok)
                first = sent_toks[0]
                last_end = para[-1][1]
                end_tok = bisect.bisect_left(token_starts, last_end) or first + 1
                paras.append((base + first, base + end_tok))
            paragraph_tokens[name] = paras
        strings = side_doc.vocab.strings
        words.extend(strings[o] for o in orth)
        spaces.extend(bool(x) for x in space)
        starts.extend(side_starts)
        info["presegmented"].append(offsets is not None)
        info["n_tokens"][SIDE_NAMES.index(name)] = len(side_doc)
        if offsets is not None:
            info["offsets"][SIDE_NAMES.index(name)] = [[list(o) for o in para] for para in offsets]
    if info["split"] < len(words):
        starts[info["split"]] = True
    if words:
        starts[0] = True
        spaces[-1] = False
    doc = Doc(nlp.vocab, words=words, spaces=spaces, sent_starts=starts)
    doc._.pair_info = info
    for name in SIDE_NAMES:
        if name in paragraph_tokens:
            doc.spans[f"{name}_paragraphs"] = [doc[s:e] for s, e in paragraph_tokens[name]]
    if gold is not None:
        gold = list(gold)
        if not all(isinstance(g, Bead) for g in gold):  # JSON beads: the one bead rule (formats.beads)
            from ..formats.bead_parser import parse_beads

            sizes = [
                sum(len(p) for p in _paragraph_list(value)) if not isinstance(value, str) else -1
                for value in (complex, simple)
            ]
            gold = parse_beads(gold, sizes, "gold", strict=True)
        set_beads(doc, gold)
    return doc


def _info(doc: Doc) -> Dict:
    info = doc._.pair_info
    if info is None:
        raise ValueError(
            "this Doc is not a Doc pair: build it with spacy_simalign.pipeline.doc_pair.make_pair(nlp, complex, simple)"
        )
    return info


def side_span(doc: Doc, name: str) -> Span:
    info = _info(doc)
    split = info["split"]
    return doc[:split] if name == "complex" else doc[split:]


def sides(doc: Doc) -> List[SideView]:
    """The sides of a pair Doc; a plain Doc is one side ("complex") in nlp's language."""
    info = doc._.pair_info if Doc.has_extension("pair_info") else None
    if info is None:
        return [SideView("complex", doc[:], doc.lang_, False)]
    return [
        SideView(name, side_span(doc, name), info["langs"][k], info["presegmented"][k])
        for k, name in enumerate(SIDE_NAMES)
    ]


def apply_segmentation(doc: Doc, name: str, paragraphs: Sequence[Sequence[Tuple[int, int]]]) -> None:
    """Set sentence starts and the paragraph span group of one side from char offsets
    (relative to the side's text): a list of paragraphs, each a list of (start, end) sentences."""
    view = next(v for v in sides(doc) if v.name == name)
    span = view.span
    offset = span.start_char
    tokens = list(span)
    if not tokens:
        doc.spans[f"{name}_paragraphs"] = []
        return
    starts = set()
    para_spans = []
    idx_list = [t.idx for t in tokens]

    def token_at(char: int) -> int:
        k = bisect.bisect_right(idx_list, char) - 1
        return tokens[max(k, 0)].i

    def token_from(char: int) -> int:
        k = bisect.bisect_left(idx_list, char)
        return tokens[min(k, len(tokens) - 1)].i

    if doc._.pair_info is not None:  # the exact sentences side_of reads (a plain Doc has only its Spans)
        doc._.pair_info.setdefault("offsets", [None, None])[SIDE_NAMES.index(name)] = [
            [[int(s), int(e)] for s, e in para] for para in paragraphs if para
        ]
    for para in paragraphs:
        if not para:
            continue
        sent_toks = [token_from(offset + start) for start, _end in para]
        starts.update(sent_toks)
        first = sent_toks[0]
        end_tok = token_at(offset + para[-1][1] - 1) + 1
        if end_tok > first:
            para_spans.append((first, end_tok))
    sent_starts = doc.to_array(["SENT_START"]).astype("int64")
    for t in tokens:
        sent_starts[t.i] = 1 if (t.i in starts or t.i == span.start) else -1
    # spaCy's stub asks for thinc's Ints2d, which a 2-D numpy array of ints is at run time
    doc.from_array(["SENT_START"], sent_starts.astype("uint64"))  # type: ignore[arg-type]
    doc.spans[f"{name}_paragraphs"] = [doc[s:e] for s, e in para_spans]


def side_sents(doc: Doc, name: str) -> List[Span]:
    """The sentences of one side, skipping whitespace-only sentences."""
    span = side_span(doc, name)
    if not len(span):
        return []
    out = []
    for sent in span.sents:  # type: ignore[attr-defined]  # Span.sents exists (spaCy >= 3.2); its stub omits it
        sent = doc[max(sent.start, span.start) : min(sent.end, span.end)]
        if sent.text.strip():
            while len(sent) and sent[-1].is_space:
                sent = doc[sent.start : sent.end - 1]
            while len(sent) and sent[0].is_space:
                sent = doc[sent.start + 1 : sent.end]
            out.append(sent)
    return out


def side_of(doc: Doc, name: str) -> Side:
    """A side as plain data, for the aligners: the exact text between the sentence offsets that
    the segmenter (or the given sentences) set, by paragraph; a side whose sentences another
    component set (a parser, spaCy's senter) falls back to its sentence Spans."""
    info = _info(doc)
    lang = info["langs"][SIDE_NAMES.index(name)]
    offsets = info.get("offsets", [None, None])[SIDE_NAMES.index(name)]
    if offsets is not None:
        from ..segmentation.sides import side_from_offsets

        return side_from_offsets(side_span(doc, name).text, offsets, lang)
    sents = side_sents(doc, name)
    group = doc.spans[f"{name}_paragraphs"] if f"{name}_paragraphs" in doc.spans else None
    if not group or not len(group):
        return Side([s.text for s in sents], [list(range(len(sents)))] if sents else [], lang)
    bounds = sorted((p.start, p.end) for p in group)
    paragraphs: List[List[int]] = []
    current: Optional[int] = -1
    bound_starts = [s for s, _ in bounds]
    for i, sent in enumerate(sents):
        k = bisect.bisect_right(bound_starts, sent.start) - 1
        in_para = k if k >= 0 and sent.start < bounds[k][1] else None
        if in_para is None or in_para != current or not paragraphs:
            paragraphs.append([])
            current = in_para
        paragraphs[-1].append(i)
    return Side([s.text for s in sents], paragraphs, lang)


def set_beads(doc: Doc, beads: Sequence[Bead]) -> None:
    doc._.alignment_data = [[list(b.complex), list(b.simple), float(b.score)] for b in beads]


def get_beads(doc: Doc) -> List[Bead]:
    data = doc._.alignment_data
    return [Bead(tuple(c), tuple(s), float(score)) for c, s, score in (data or [])]


def set_paragraph_links(doc: Doc, links: Sequence[ParagraphLink]) -> None:
    doc._.paragraph_alignment_data = [[list(p.complex), list(p.simple), float(p.score)] for p in links]


def get_paragraph_links(doc: Doc) -> List[ParagraphLink]:
    data = doc._.paragraph_alignment_data
    return [ParagraphLink(tuple(c), tuple(s), float(score)) for c, s, score in (data or [])]


def span_side(span: Span) -> Optional[str]:
    info = span.doc._.pair_info
    if info is None:
        return None
    return "complex" if span.start < info["split"] else "simple"


def sent_index(span: Span) -> Optional[int]:
    """Index of the sentence that starts this span among its side's sentences."""
    name = span_side(span)
    if name is None:
        return None
    for i, sent in enumerate(side_sents(span.doc, name)):
        if sent.start <= span.start < sent.end:
            return i
    return None


def aligned_sents(span: Span) -> List[Tuple[Span, float]]:
    """The sentences of the other side aligned to this sentence, with the bead's score."""
    name = span_side(span)
    idx = sent_index(span)
    if name is None or idx is None:
        return []
    other = "simple" if name == "complex" else "complex"
    other_sents = side_sents(span.doc, other)
    out: List[Tuple[Span, float]] = []
    for bead in get_beads(span.doc):
        mine, theirs = (bead.complex, bead.simple) if name == "complex" else (bead.simple, bead.complex)
        if idx in mine:
            out.extend((other_sents[j], bead.score) for j in theirs if j < len(other_sents))
    return out


def pair_from_record(nlp: Language, record) -> Doc:
    """A Doc pair from a validated formats.PairRecord (gold, if any, stays out of the Doc)."""
    return make_pair(
        nlp, record.side_input("complex"), record.side_input("simple"), record.lang, record.lang_simple, id=record.id
    )
