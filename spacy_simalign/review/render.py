"""See an alignment: an HTML view of a pair, in the manner of displaCy. The two sides'
paragraphs stand side by side, aligned sentences carry their bead's number and a colour
for its score (linked by lines where JavaScript runs), unaligned ones are marked deleted
(complex) or added (simple). Works on pair records, Doc pairs or plain Sides and Beads."""

import hashlib
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..core.errors import InputError
from ..core.structures import Bead, Side
from ..formats.alignments import AlignmentLine, load_alignments, parse_alignment
from ..formats.bead_parser import SIDES, out_of_range, shown
from ..formats.jsonl import check_unicode
from ..formats.pair_jsonl import PairRecord, parse_pair, read_pairs
from ..segmentation.sides import side_from_sentences

TEMPLATES = Path(__file__).resolve().parents[1] / "templates"


@dataclass
class PairView:
    """What the viewer and the review page show of one pair: both sides and the beads."""

    id: str
    complex: Side
    simple: Side
    beads: List[Bead]
    source: str = "gold"  # where the beads came from: "gold", "alignments", "doc" or "none"
    raw_sides: List[str] = field(default_factory=list)  # names of sides given as raw text

    def side(self, name: str) -> Side:
        return self.complex if name == "complex" else self.simple

    def to_json(self) -> Dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "raw_sides": list(self.raw_sides),
            "complex": {
                "sentences": self.complex.sentences,
                "paragraphs": self.complex.paragraphs,
                "lang": self.complex.lang,
            },
            "simple": {
                "sentences": self.simple.sentences,
                "paragraphs": self.simple.paragraphs,
                "lang": self.simple.lang,
            },
            "beads": [b.to_json() for b in self.beads],
        }


def asset(name: str) -> str:
    """The text of a file in spacy_simalign/templates."""
    return (TEMPLATES / name).read_text(encoding="utf-8")


# ---------------------------------------------------------------- reading inputs


def check_beads(beads: Sequence[Bead], complex: Side, simple: Side, what: str) -> None:
    """Beads handed over in Python (not read from a file) must name sentences of the sides."""
    for b, name, bad, size in out_of_range(beads, (len(complex), len(simple))):
        raise InputError(f"{what}[{b}] {name} index {shown(bad[0])} is out of range (side has {size} sentences)")


def view_from_record(record: PairRecord, alignment: Optional[AlignmentLine] = None) -> PairView:
    """A PairView of a pair record; beads from `alignment` (a checked alignment line) when
    given, else from the record's gold. A raw-text side has the sentences the alignment
    carries, or without one those of our segmenter."""
    sides, raw = {}, []
    for name in SIDES:
        sentences = alignment.sentences(name) if alignment is not None else None
        if not record.is_presegmented(name):
            raw.append(name)
        if record.is_presegmented(name) or sentences is None:
            sides[name] = record.side(name)
        else:
            sides[name] = side_from_sentences(record.given_text(name), sentences, record.side_lang(name))
    if alignment is not None:
        beads, source = alignment.check_sizes((len(sides["complex"]), len(sides["simple"]))).beads, "alignments"
    elif record.gold is not None:
        beads, source = list(record.gold), "gold"
    else:
        beads, source = [], "none"
    return PairView(record.id, sides["complex"], sides["simple"], beads, source, raw)


def load_views(
    pairs_path: str, alignments_path: Optional[str] = None, alignments: Optional[Dict[str, AlignmentLine]] = None
) -> List[PairView]:
    """One PairView per line of a pair JSONL file, with the aligner's beads where given
    (`alignments`: what load_alignments(alignments_path) returned, if the caller has it). Every
    string must be writable as UTF-8, as the page is (a JSON escape can hold a lone surrogate)."""
    if alignments is None:
        alignments = load_alignments(alignments_path) if alignments_path else {}
    for line in alignments.values():
        check_unicode(line.raw, line.path, line.line)
    views, seen = [], set()
    for record in read_pairs(pairs_path):
        check_unicode(record.raw, pairs_path, record.line)
        views.append(view_from_record(record, alignments.get(record.id)))
        seen.add(record.id)
    for pair_id, line in alignments.items():
        if pair_id not in seen:
            raise InputError(f"id '{pair_id}' is in no pair of {pairs_path}", alignments_path, line.line)
    return views


def view_from_doc(doc) -> PairView:
    """A PairView of a Doc pair (spacy_simalign.pipeline.doc_pair): its sides and `doc._.beads`."""
    from ..pipeline import doc_pair as pair

    pair.install_extensions()
    complex_side, simple_side = pair.side_of(doc, "complex"), pair.side_of(doc, "simple")
    beads = list(doc._.beads)
    check_beads(beads, complex_side, simple_side, "doc._.beads")
    return PairView(doc._.pair_id or "", complex_side, simple_side, beads, "doc" if beads else "none")


def _as_view(item, alignment) -> PairView:
    if isinstance(item, PairView):
        return item
    if isinstance(item, dict) and "alignments" not in item:
        item = parse_pair(item)
    if isinstance(item, PairRecord):
        if isinstance(alignment, (list, tuple)) and all(isinstance(b, Bead) for b in alignment):
            view = view_from_record(item)
            check_beads(alignment, view.complex, view.simple, "alignments")
            view.beads, view.source = list(alignment), "alignments"
            return view
        return view_from_record(item, parse_alignment(alignment) if isinstance(alignment, dict) else alignment)
    if isinstance(item, tuple) and len(item) in (2, 3) and all(isinstance(s, Side) for s in item[:2]):
        beads = list(item[2]) if len(item) == 3 else list(alignment or [])
        check_beads(beads, item[0], item[1], "beads")
        return PairView("", item[0], item[1], beads, "alignments" if beads else "none")
    if hasattr(item, "_") and hasattr(item, "vocab"):
        view = view_from_doc(item)
        if alignment is not None:
            if isinstance(alignment, dict):
                beads = parse_alignment(
                    dict(alignment, id=alignment.get("id") or view.id or "?"),
                    sizes=(len(view.complex), len(view.simple)),
                ).beads
            else:
                beads = list(alignment)
                check_beads(beads, view.complex, view.simple, "alignments")
            view.beads, view.source = beads, "alignments"
        return view
    raise TypeError(
        f"render() takes pair records (dicts or PairRecord), Doc pairs or (Side, Side[, beads]) "
        f"tuples, not {type(item).__name__}"
    )


def _is_single(obj) -> bool:
    if isinstance(obj, (dict, PairRecord, PairView)) or hasattr(obj, "vocab"):
        return True
    return isinstance(obj, tuple) and len(obj) in (2, 3) and isinstance(obj[0], Side)


# ---------------------------------------------------------------- HTML


def score_hue(score: float) -> int:
    """Hue for a score: 0 (red) for 0, 130 (green) for 1."""
    return int(round(130 * min(max(float(score), 0.0), 1.0)))


def _dom_id(view: PairView, position: int) -> str:
    digest = hashlib.sha1(f"{position}\0{view.id}".encode("utf-8")).hexdigest()[:8]
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", view.id)[:40].strip("-")
    return f"sa-{slug}-{digest}" if slug else f"sa-{digest}"


def _column(view: PairView, name: str, of: Dict[int, List[int]], hues: List[int], beads: List[Bead]) -> List[str]:
    side = view.side(name)
    esc = html.escape
    out = [f'<div class="sa-col sa-{name}" lang="{esc(side.lang)}"><h3>{name} ({esc(side.lang)})</h3>']
    for k, para in enumerate(side.paragraphs):
        out.append(f'<div class="sa-para" data-para="{k}"><div class="sa-para-label">¶ {k + 1}</div>')
        for i in para:
            mine = of.get(i, [])
            text = esc(side.sentences[i])
            if mine:
                first = mine[0]
                numbers = " ".join(str(b + 1) for b in mine)
                bead = beads[first]
                title = "; ".join(
                    f"bead {b + 1}: {len(beads[b].complex)}:{len(beads[b].simple)}, score {beads[b].score:.2f}"
                    for b in mine
                )
                out.append(
                    f'<div class="sa-sent sa-aligned" data-side="{name}" data-index="{i}" '
                    f'data-beads="{numbers}" data-score="{bead.score:.4f}" style="--sa-hue: {hues[first]}" '
                    f'title="{esc(title)}"><span class="sa-badge">{esc(numbers)}</span>'
                    f'<span class="sa-num">{i}</span>{text}</div>'
                )
            else:
                kind = "deleted" if name == "complex" else "added"
                out.append(
                    f'<div class="sa-sent sa-{kind}" data-side="{name}" data-index="{i}" '
                    f'title="{kind}: in no bead"><span class="sa-num">{i}</span>{text}</div>'
                )
        out.append("</div>")
    out.append("</div>")
    return out


def render_view(view: PairView, position: int = 0) -> str:
    """HTML of one pair (no styles or script: see render())."""
    esc = html.escape
    of: Dict[str, Dict[int, List[int]]] = {"complex": {}, "simple": {}}
    for b, bead in enumerate(view.beads):
        for i in bead.complex:
            of["complex"].setdefault(i, []).append(b)
        for i in bead.simple:
            of["simple"].setdefault(i, []).append(b)
    hues = [score_hue(b.score) for b in view.beads]
    deleted = len(view.complex) - len(of["complex"])
    added = len(view.simple) - len(of["simple"])
    stats = (
        f"{len(view.beads)} beads · {len(view.complex)} complex / {len(view.simple)} simple sentences · "
        f"{deleted} deleted · {added} added · from {view.source}"
    )
    out = [
        f'<section class="sa-pair" id="{_dom_id(view, position)}" data-pair-id="{esc(view.id)}">',
        f'<header class="sa-head"><h2>{esc(view.id) or "pair " + str(position + 1)}</h2>'
        f'<span class="sa-stats">{esc(stats)}</span>'
        '<span class="sa-legend"><span><i class="sa-swatch sa-grad"></i>score 0 → 1</span>'
        '<span><i class="sa-swatch" style="background:#e4e4e4;border-left:3px solid #666"></i>deleted</span>'
        '<span><i class="sa-swatch" style="background:#d6e6f5;border-left:3px dashed #2471a3"></i>added</span>'
        '</span></header><div class="sa-grid">',
    ]
    out.extend(_column(view, "complex", of["complex"], hues, view.beads))
    out.append('<svg class="sa-links" aria-hidden="true"></svg>')
    out.extend(_column(view, "simple", of["simple"], hues, view.beads))
    out.append("</div></section>")
    return "".join(out)


def _page(body: str, title: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>body{{margin:1.5em;background:#fafafa}}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def is_in_jupyter() -> bool:
    """True inside a Jupyter kernel (as displaCy checks)."""
    try:
        from IPython import get_ipython

        shell = get_ipython()
        return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"
    except ImportError:
        return False


def render(pairs_or_docs, alignments=None, page: bool = False, jupyter: Optional[bool] = None) -> Optional[str]:
    """Render one pair or a list of pairs as HTML.

    pairs_or_docs: a pair JSONL dict or formats.PairRecord, a Doc pair, a (Side, Side[, beads])
        tuple, or a list of these.
    alignments: what to show instead of the pair's own beads (gold, or `doc._.beads`): an alignment
        JSONL record (dict), a list of Beads (one pair), or for a list of pairs, a list of records
        (matched by id, else by position) or a dict of records by id.
    page: a whole HTML page instead of a fragment (for a static file).
    jupyter: display in the notebook and return None, as displacy.render does; None = if in Jupyter.
    """
    items = [pairs_or_docs] if _is_single(pairs_or_docs) else list(pairs_or_docs)
    single = _is_single(pairs_or_docs)
    by_id: Dict[str, Any] = {}
    by_pos: List[Any] = []
    if isinstance(alignments, dict) and "alignments" not in alignments:
        by_id = alignments
    elif single:
        by_pos = [alignments]
    elif alignments is not None:
        by_pos = list(alignments)
        by_id = {a["id"]: a for a in by_pos if isinstance(a, dict) and "id" in a}
    views = []
    for n, item in enumerate(items):
        item_id = item.get("id") if isinstance(item, dict) else getattr(item, "id", None)
        alignment = by_id.get(item_id) if item_id is not None and by_id else None
        if alignment is None and not by_id and n < len(by_pos):
            alignment = by_pos[n]
        views.append(_as_view(item, alignment))
    body = "".join(render_view(v, n) for n, v in enumerate(views))
    markup = (
        f'<div class="sa-render"><style>{asset("align.css")}</style>{body}<script>{asset("align.js")}</script></div>'
    )
    if page:
        title = views[0].id if len(views) == 1 and views[0].id else f"{len(views)} aligned pairs"
        markup = _page(markup, f"spacy-simalign: {title}")
    if jupyter or (jupyter is None and is_in_jupyter()):
        from IPython.display import HTML, display

        display(HTML(markup))
        return None
    return markup
