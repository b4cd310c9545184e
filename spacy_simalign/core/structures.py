"""Plain data that every aligner shares: a side of a pair (sentences grouped in
paragraphs) and a bead (an n:m alignment with a score). No spaCy here, so the
algorithms stay testable on lists of strings."""

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Set, Tuple

Link = Tuple[int, int]  # a sentence link: (complex index, simple index)

SUPPORTED_LANGS = ("de", "nl", "fr", "en")


@dataclass
class Side:
    """One version of a document: its sentences in order, grouped in paragraphs.

    `paragraphs[k]` lists the (global, 0-based) sentence indices of paragraph k.
    """

    sentences: List[str]
    paragraphs: List[List[int]]
    lang: str = "de"

    @classmethod
    def from_paragraphs(cls, paragraphs: Sequence[Sequence[str]], lang: str = "de") -> "Side":
        sentences: List[str] = []
        groups: List[List[int]] = []
        for para in paragraphs:
            groups.append(list(range(len(sentences), len(sentences) + len(para))))
            sentences.extend(para)
        return cls(sentences, groups, lang)

    def __len__(self) -> int:
        return len(self.sentences)

    def paragraph_of(self) -> List[int]:
        """Paragraph index of each sentence."""
        out = [0] * len(self.sentences)
        for k, idx in enumerate(self.paragraphs):
            for i in idx:
                out[i] = k
        return out

    def paragraph_texts(self) -> List[str]:
        return [" ".join(self.sentences[i] for i in idx) for idx in self.paragraphs]


@dataclass(frozen=True)
class Bead:
    """An n:m alignment: complex sentence indices, simple sentence indices, confidence in [0, 1]."""

    complex: Tuple[int, ...]
    simple: Tuple[int, ...]
    score: float = 1.0

    def to_json(self) -> Dict:
        return {"complex": list(self.complex), "simple": list(self.simple), "score": round(float(self.score), 4)}

    @classmethod
    def from_json(cls, obj) -> "Bead":
        if isinstance(obj, dict):
            return cls(tuple(obj["complex"]), tuple(obj["simple"]), float(obj.get("score", 1.0)))
        return cls(tuple(obj[0]), tuple(obj[1]), 1.0)

    def links(self) -> List[Tuple[int, int]]:
        return [(c, s) for c in self.complex for s in self.simple]


@dataclass(frozen=True)
class ParagraphLink:
    """A complex paragraph group aligned to a simple paragraph group (indices of paragraphs)."""

    complex: Tuple[int, ...]
    simple: Tuple[int, ...]
    score: float = 1.0


@dataclass
class TrainingPair:
    """A document pair with its gold beads: what trainable aligners learn from."""

    complex: Side
    simple: Side
    gold: List[Bead]
    paragraph_links: Optional[List[ParagraphLink]] = None
    id: str = ""

    @property
    def links(self) -> Set[Tuple[int, int]]:
        return {link for bead in self.gold for link in bead.links()}


def beads_from_links(
    links: Sequence[Tuple[int, int]], scores: Optional[Dict[Tuple[int, int], float]] = None
) -> List[Bead]:
    """Group sentence links into beads: the connected components of the link graph."""
    parent: Dict[Tuple[str, int], Tuple[str, int]] = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c, s in links:
        ra, rb = find(("c", c)), find(("s", s))
        if ra != rb:
            parent[ra] = rb
    groups: Dict[Tuple[str, int], Tuple[set, set]] = {}
    for c, s in links:
        cs, ss = groups.setdefault(find(("c", c)), (set(), set()))
        cs.add(c)
        ss.add(s)
    beads = []
    for cs, ss in groups.values():
        vals = [scores[(c, s)] for c in cs for s in ss if scores and (c, s) in scores]
        score = sum(vals) / len(vals) if vals else 1.0
        beads.append(Bead(tuple(sorted(cs)), tuple(sorted(ss)), float(score)))
    return sorted(beads, key=lambda b: (b.complex[0], b.simple[0]))
