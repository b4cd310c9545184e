"""The Klexikon pipeline (Aumiller and Gertz, 2022): read Klexikon / German Wikipedia
article pairs, clean them with the dataset's rules, drop short Wikipedia articles, the
lead-3 baseline, and a length-stratified 80/10/10 split with a fixed seed.

Article files hold one sentence per line, a blank line between paragraphs and `==`
heading lines. The *lead* is what comes before the first heading (for an article with no
heading before its second paragraph: its first paragraph)."""

import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..aligners.scoring import PRF
from ..core.errors import InputError
from ..core.word_tokens import words
from ..formats.text_files import folder_files
from ..formats.utf8 import read_utf8

ARTICLE_FOLDERS = ("wiki", "klexikon")  # FOLDER/wiki/<Title>.txt pairs with FOLDER/klexikon/<Title>.txt
HEADING = re.compile(r"^\s*(=+)\s*(.*?)\s*=*\s*$")
TERMINAL_PERIOD = re.compile(r"[.!?][\"'“”„»«)\]]*$")
_DEG = r"\d{1,3}°(?:\s*\d{1,2}(?:[.,]\d+)?['′])?(?:\s*\d{1,2}(?:[.,]\d+)?[\"″])?"
COORDINATES = re.compile(r"\(?[-\d.]*Koordinaten:\s*" + _DEG + r"\s*[NS],?\s*" + _DEG + r"\s*[OWE][-\d.]*\)?")


@dataclass
class Article:
    """One article: its paragraphs (lists of sentence lines), the heading each paragraph
    sits under (None in the lead) and how many paragraphs form the lead."""

    title: str
    paragraphs: List[List[str]]
    sections: List[Optional[str]]
    lead_size: int

    @property
    def sentences(self) -> List[str]:
        return [s for p in self.paragraphs for s in p]


def parse_article(text: str, title: str = "", path: str = "<input>") -> Article:
    """Parse one article file's text: blank lines end paragraphs, `==` lines are headings."""
    paragraphs: List[List[str]] = []
    sections: List[Optional[str]] = []
    current: List[str] = []
    heading: Optional[str] = None
    first_heading_at: Optional[int] = None

    def close():
        nonlocal current
        if current:
            paragraphs.append(current)
            sections.append(heading)
            current = []

    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            close()
            continue
        match = HEADING.match(stripped) if stripped.startswith("=") else None
        if match:
            close()
            heading = match.group(2)
            if first_heading_at is None:
                first_heading_at = len(paragraphs)
            continue
        current.append(stripped)
    close()
    if first_heading_at is None or first_heading_at == 0:
        lead = min(1, len(paragraphs))
    else:
        lead = first_heading_at
    return Article(title, paragraphs, sections, lead)


def read_article(path: str, title: Optional[str] = None) -> Article:
    """The article of a file; its title is the file's name without `.txt` unless given."""
    text = read_utf8(path)
    return parse_article(text, title or os.path.splitext(os.path.basename(path))[0], path)


def read_article_pairs(folder: str) -> Tuple[List[Tuple[Article, Article]], List[str]]:
    """(Wikipedia article, Klexikon article) pairs of `folder/wiki` and `folder/klexikon`,
    paired by title: the name without `.txt` in Unicode's composed form (text_files.folder_files: a
    title written decomposed, as macOS writes file names, pairs with the same title written composed;
    two files of one title are an error); also the titles found on one side only."""
    sides = {}
    for side in ARTICLE_FOLDERS:
        sub = os.path.join(folder, side)
        if not os.path.isdir(sub):
            raise InputError(f"missing folder '{side}/' (expected {side}/<Title>.txt)", folder)
        sides[side] = folder_files(sub, ".txt")
    common = sorted(set(sides["wiki"]) & set(sides["klexikon"]))
    orphans = sorted(set(sides["wiki"]) ^ set(sides["klexikon"]))
    pairs = [
        (
            read_article(sides["wiki"][t], t),
            read_article(sides["klexikon"][t], t),
        )
        for t in common
    ]
    return pairs, orphans


# --- clean-up rules: each takes an Article and returns (new Article, number of lines changed)


def _merge_where(
    article: Article,
    limit: int,
    should_merge: Callable[[str], bool],
    cross_paragraphs: bool,
    fallback_previous: bool = False,
) -> Tuple[Article, int]:
    """Merge each line for which `should_merge` holds with the line after it, within the
    first `limit` paragraphs. With `cross_paragraphs`, the last line of a paragraph joins
    the next paragraph of the same section (never across a heading); with
    `fallback_previous`, a line with nothing after it joins the line before it.
    Paragraphs left empty are dropped and the lead shrinks accordingly."""
    paragraphs = [list(p) for p in article.paragraphs]
    sections = list(article.sections)
    merges = 0
    changed = True
    while changed:
        changed = False
        for k, para in enumerate(paragraphs[:limit]):
            for i, line in enumerate(para):
                if not should_merge(line):
                    continue
                same_section = k + 1 < limit and k + 1 < len(paragraphs) and sections[k + 1] == sections[k]
                if i + 1 < len(para):
                    para[i : i + 2] = [f"{line} {para[i + 1]}"]
                elif cross_paragraphs and same_section:
                    paragraphs[k + 1][0] = f"{line} {paragraphs[k + 1][0]}"
                    del para[i]
                elif fallback_previous and i > 0:
                    para[i - 1 : i + 1] = [f"{para[i - 1]} {line}"]
                else:
                    continue
                merges += 1
                changed = True
                break
            if changed:
                break
    lead = article.lead_size - sum(1 for p in paragraphs[: article.lead_size] if not p)
    keep = [k for k, p in enumerate(paragraphs) if p]
    return replace(
        article, paragraphs=[paragraphs[k] for k in keep], sections=[sections[k] for k in keep], lead_size=lead
    ), merges


def merge_semicolon_splits(article: Article) -> Tuple[Article, int]:
    """A line ending in ';' was one sentence split at its semicolon: join it with the next
    line, across a blank line but not across a heading."""
    return _merge_where(
        article, len(article.paragraphs), lambda line: line.rstrip().endswith(";"), cross_paragraphs=True
    )


def merge_short_lead_lines(article: Article, min_chars: int = 10) -> Tuple[Article, int]:
    """Lines of the lead shorter than `min_chars` characters (caption and layout debris) are
    merged with the following line."""
    return _merge_where(
        article, article.lead_size, lambda line: len(line) < min_chars, cross_paragraphs=True, fallback_previous=True
    )


def remove_coordinates(article: Article) -> Tuple[Article, int]:
    """Delete geographic coordinates ('Koordinaten: 47° 30' N, 8° 12' O' and the decimal
    degrees glued to them); a line left with no word is dropped. Counts changed lines."""
    changed = 0
    paragraphs, sections = [], []
    lead = article.lead_size
    for k, (para, section) in enumerate(zip(article.paragraphs, article.sections)):
        lines = []
        for line in para:
            new = COORDINATES.sub("", line)
            if new != line:
                changed += 1
                new = re.sub(r"\s{2,}", " ", new).strip()
                if not re.search(r"\w", new):
                    continue
            lines.append(new)
        if lines:
            paragraphs.append(lines)
            sections.append(section)
        elif k < article.lead_size:
            lead -= 1
    return replace(article, paragraphs=paragraphs, sections=sections, lead_size=lead), changed


def merge_unterminated_lead(article: Article) -> Tuple[Article, int]:
    """A lead sentence that does not end in a period (nor '!' or '?', maybe followed by a
    quote or bracket) continues on the next line of its paragraph: join them."""
    return _merge_where(
        article, article.lead_size, lambda line: not TERMINAL_PERIOD.search(line), cross_paragraphs=False
    )


CLEANUP_RULES: Dict[str, Callable[[Article], Tuple[Article, int]]] = {
    "semicolon": merge_semicolon_splits,
    "short-lead": merge_short_lead_lines,
    "coordinates": remove_coordinates,
    "unterminated-lead": merge_unterminated_lead,
}


@dataclass
class KlexikonSettings:
    """Switches and parameters of the pipeline."""

    skip: Sequence[str] = ()
    sides: Sequence[str] = ("wiki", "klexikon")
    min_wiki_paragraphs: int = 15
    seed: int = 42
    split: Tuple[float, float, float] = (0.8, 0.1, 0.1)


@dataclass
class KlexikonReport:
    """Counts per rule and side: lines before/after and lines changed; pairs kept/discarded."""

    rule_rows: List[Tuple[str, str, bool, int, int, int]] = field(default_factory=list)
    pairs_read: int = 0
    orphans: int = 0
    discarded_short: List[str] = field(default_factory=list)
    split_sizes: Dict[str, int] = field(default_factory=dict)

    def table(self) -> str:
        lines = [f"{'rule':<18} {'side':<9} {'on':<4} {'lines in':>8} {'lines out':>9} {'changed':>8}"]
        for rule, side, on, before, after, changed in self.rule_rows:
            lines.append(f"{rule:<18} {side:<9} {'yes' if on else 'no':<4} {before:>8} {after:>9} {changed:>8}")
        kept = self.pairs_read - len(self.discarded_short)
        lines += [
            "",
            f"{'filter':<30} {'kept':>6} {'discarded':>9}",
            f"{'article pairs read':<30} {self.pairs_read:>6} {self.orphans:>9}",
            f"{'wiki >= min paragraphs':<30} {kept:>6} {len(self.discarded_short):>9}",
        ]
        if self.split_sizes:
            lines += ["", "split sizes: " + ", ".join(f"{k} {v}" for k, v in self.split_sizes.items())]
        return "\n".join(lines)


def clean_pairs(
    pairs: Sequence[Tuple[Article, Article]], settings: KlexikonSettings, report: KlexikonReport
) -> List[Tuple[Article, Article]]:
    """Apply the clean-up rules in order to the chosen sides, recording counts."""
    unknown = set(settings.skip) - set(CLEANUP_RULES)
    if unknown:
        raise ValueError(f"unknown rule(s) {', '.join(sorted(unknown))} (rules: {', '.join(CLEANUP_RULES)})")
    current = [list(p) for p in pairs]
    for name, rule in CLEANUP_RULES.items():
        for s, side in enumerate(("wiki", "klexikon")):
            on = name not in settings.skip and side in settings.sides
            before = sum(len(p[s].sentences) for p in current)
            changed = 0
            if on:
                for p in current:
                    p[s], n = rule(p[s])
                    changed += n
            after = sum(len(p[s].sentences) for p in current)
            report.rule_rows.append((name, side, on, before, after, changed))
    return [(p[0], p[1]) for p in current]


def filter_short(
    pairs: Sequence[Tuple[Article, Article]], min_paragraphs: int, report: KlexikonReport
) -> List[Tuple[Article, Article]]:
    """Discard pairs whose Wikipedia article has fewer than `min_paragraphs` paragraphs
    (headings are not paragraphs)."""
    kept = []
    for wiki, klex in pairs:
        if len(wiki.paragraphs) < min_paragraphs:
            report.discarded_short.append(wiki.title)
        else:
            kept.append((wiki, klex))
    return kept


def lead_n(article: Article, n: int = 3) -> List[str]:
    """The lead-n baseline summary: the article's first n sentences."""
    return article.sentences[:n]


def _ngrams(tokens: Sequence[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def rouge_f1(candidate: str, reference: str) -> Dict[str, float]:
    """ROUGE-1, ROUGE-2 (n-gram overlap) and ROUGE-L (longest common subsequence, from
    rapidfuzz) F1 on lower-cased word tokens, no stemming."""
    from rapidfuzz.distance import LCSseq

    cand, ref = words(candidate), words(reference)
    out = {}
    for n in (1, 2):
        c, r = _ngrams(cand, n), _ngrams(ref, n)
        out[f"rouge{n}"] = PRF(sum((c & r).values()), sum(c.values()), sum(r.values())).f
    lcs = LCSseq.similarity(cand, ref) if cand and ref else 0
    out["rougeL"] = PRF(lcs, len(cand), len(ref)).f
    return out


def document_length(pair: Tuple[Article, Article]) -> int:
    """Length used to stratify the split: words in the Wikipedia article."""
    return sum(len(words(s)) for s in pair[0].sentences)


def stratified_split(
    items: Sequence,
    lengths: Sequence[int],
    seed: int = KlexikonSettings.seed,
    proportions: Tuple[float, float, float] = KlexikonSettings.split,
) -> Dict[str, List]:
    """Train/validation/test split stratified by length: items sorted by length are cut in
    consecutive strata of round(1 / smallest proportion) items (10 for 80/10/10), and each
    stratum is shuffled with `seed` and dealt out in the proportions; the remainder of the
    last stratum goes to train first. Deterministic for a seed."""
    if abs(sum(proportions) - 1.0) > 1e-9 or min(proportions) <= 0:
        raise ValueError("split proportions must be positive and sum to 1")
    rng = random.Random(seed)
    order = sorted(range(len(items)), key=lambda i: (lengths[i], i))
    size = max(int(round(1 / min(proportions))), 1)
    quota = [int(round(p * size)) for p in proportions]
    quota[0] = size - sum(quota[1:])
    names = ("train", "validation", "test")
    out: Dict[str, List] = {n: [] for n in names}
    for start in range(0, len(order), size):
        stratum = order[start : start + size]
        rng.shuffle(stratum)
        k = 0
        for name, q in zip(names, quota):
            take = stratum[k : k + q]
            out[name].extend(items[i] for i in take)
            k += q
    return out


def pair_record(wiki: Article, klex: Article) -> Dict[str, object]:
    """A cleaned article pair as pair JSONL (FORMATS.md): Wikipedia is complex, Klexikon simple."""
    return {
        "id": f"klexikon-{wiki.title}",
        "lang": "de",
        "title": wiki.title,
        "complex": {"paragraphs": wiki.paragraphs},
        "simple": {"paragraphs": klex.paragraphs},
        "complex_sections": wiki.sections,
        "simple_sections": klex.sections,
        "license": "CC BY-SA",
    }


def run_pipeline(folder: str, settings: Optional[KlexikonSettings] = None):
    """Read, clean, filter and split; returns (splits of pair records, lead-3 rows, report)."""
    settings = settings or KlexikonSettings()
    report = KlexikonReport()
    pairs, orphans = read_article_pairs(folder)
    report.pairs_read, report.orphans = len(pairs), len(orphans)
    pairs = clean_pairs(pairs, settings, report)
    pairs = filter_short(pairs, settings.min_wiki_paragraphs, report)
    splits = stratified_split(pairs, [document_length(p) for p in pairs], settings.seed, settings.split)
    report.split_sizes = {k: len(v) for k, v in splits.items()}
    records = {k: [pair_record(w, k_) for w, k_ in v] for k, v in splits.items()}
    lead3 = []
    for name, items in splits.items():
        for wiki, klex in items:
            summary = " ".join(lead_n(wiki, 3))
            lead3.append(
                {
                    "id": f"klexikon-{wiki.title}",
                    "split": name,
                    "lead3": summary,
                    **{k: round(v, 4) for k, v in rouge_f1(summary, " ".join(klex.sentences)).items()},
                }
            )
    return records, lead3, report
