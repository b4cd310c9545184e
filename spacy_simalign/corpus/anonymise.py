"""Anonymising a corpus before publishing it (what `anonymise` runs): a pipeline ending in the
`simalign_anonymiser` component (pipeline/anonymiser.py), applied to texts and corpus rows, and
its recall on a sample with expected replacements."""

from typing import Dict, Iterable, List, Optional

from spacy.language import Language

from ..pipeline.anonymiser import PLACEHOLDERS, SENSITIVE_TEXT

TRAINED_PIPELINES = {
    "nl": ("nl_core_news_lg", "nl_core_news_md", "nl_core_news_sm"),
    "de": ("de_core_news_lg", "de_core_news_md", "de_core_news_sm"),
    "fr": ("fr_core_news_lg", "fr_core_news_md", "fr_core_news_sm"),
    "en": ("en_core_web_lg", "en_core_web_md", "en_core_web_sm"),
}


def anonymiser_pipeline(
    lang: str, model: Optional[str] = None, use_ner: bool = True, config: Optional[Dict] = None
) -> Language:
    """A pipeline ending in the anonymiser: `model` (an installed spaCy pipeline or folder)
    if given, else the first installed trained pipeline for `lang` when `use_ner`, else
    `spacy.blank(lang)` with the rule-based sentencizer."""
    import spacy
    from spacy.util import is_package

    from ..core.errors import InputError
    from ..startup.blank_pipelines import blank_language

    if model is None and use_ner:
        model = next((m for m in TRAINED_PIPELINES.get(lang, ()) if is_package(m)), None)
    if model is not None:
        try:
            nlp = spacy.load(model, exclude=["lemmatizer"])
        except OSError:
            raise InputError(f"spaCy pipeline '{model}' is not installed") from None
    else:
        nlp = blank_language(lang)
    if not any(nlp.has_pipe(p) for p in ("parser", "senter", "sentencizer")):
        nlp.add_pipe("sentencizer")
    nlp.add_pipe("simalign_anonymiser", config={**(config or {}), "use_ner": use_ner})
    return nlp


def anonymise_texts(nlp: Language, texts: Iterable[str], flagged: Iterable[bool] = ()) -> List[str]:
    """Anonymise many texts; a text whose `flagged` entry is True becomes `xxx xxx xxx`."""
    flags = list(flagged)
    out = []
    for k, doc in enumerate(nlp.pipe(texts)):
        out.append(SENSITIVE_TEXT if k < len(flags) and flags[k] else doc._.anonymised)
    return out


def evaluate_sample(nlp: Language, path: str) -> Dict[str, Dict[str, int]]:
    """Count true positives, false positives and false negatives per label on an annotated
    sample (JSONL: text, entities [[text, label]], sensitive); a predicted entity counts when
    its exact text and label match an annotated one. Sensitive lines are scored as one
    SENSITIVE item each, and their entities are not scored (the whole line is hidden)."""
    import json
    from collections import Counter

    counts: Dict[str, Dict[str, int]] = {}
    with open(path, encoding="utf-8") as handle:
        items = [json.loads(line) for line in handle if line.strip()]
    for item, doc in zip(items, nlp.pipe([it["text"] for it in items])):
        chars = doc._.anonymised_chars or []
        predicted_sensitive = any(label == "SENSITIVE" for _, _, label in chars)
        gold_sensitive = bool(item.get("sensitive"))
        pred = Counter((doc.text[s:e], label) for s, e, label in chars if label != "SENSITIVE")
        gold = Counter((text, label) for text, label in item["entities"])
        if gold_sensitive or predicted_sensitive:
            pred, gold = Counter(), Counter()
        if predicted_sensitive:
            pred[("", "SENSITIVE")] += 1
        if gold_sensitive:
            gold[("", "SENSITIVE")] += 1
        for text, label in pred | gold:
            row = counts.setdefault(label, {"tp": 0, "fp": 0, "fn": 0})
            tp = min(pred[(text, label)], gold[(text, label)])
            row["tp"] += tp
            row["fp"] += pred[(text, label)] - tp
            row["fn"] += gold[(text, label)] - tp
    return counts


BLANKED = ("iban", "health", "politics")  # categories whose whole sentence must become SENSITIVE_TEXT


def category_recall(path: str, pipelines: Dict[str, Language]) -> Dict[str, Dict[str, List[int]]]:
    """Per category and language, [caught, lines] on a category sample (JSONL: lang, category,
    text, value): an e-mail, URL or phone `value` is caught when it is gone from the anonymised
    text, an IBAN, health or party-membership line when the whole sentence is blanked; a line of
    category "none" (no such data) counts as caught when it is left as it was (its row is then
    the share kept, 1 - false alarms)."""
    import json

    with open(path, encoding="utf-8") as handle:
        items = [json.loads(line) for line in handle if line.strip()]
    out: Dict[str, Dict[str, List[int]]] = {}
    for item in items:
        text = pipelines[item["lang"]](item["text"])._.anonymised
        category = item["category"]
        if category in BLANKED:
            caught = text == SENSITIVE_TEXT
        elif category == "none":
            caught = text == item["text"]
        else:
            caught = item["value"] not in text
        row = out.setdefault(category, {}).setdefault(item["lang"], [0, 0])
        row[0] += int(caught)
        row[1] += 1
    return out


def format_category_recall(counts: Dict[str, Dict[str, List[int]]], langs=("de", "nl", "fr", "en")) -> str:
    """A Markdown table of category_recall: recall (caught / lines) per category and language."""
    lines = [f"| category | {' | '.join(langs)} |", "|---|" + "---:|" * len(langs)]
    for category, by_lang in counts.items():
        cells = [
            f"{by_lang[lang][0] / by_lang[lang][1]:.2f} ({by_lang[lang][0]}/{by_lang[lang][1]})"
            if lang in by_lang
            else "-"
            for lang in langs
        ]
        lines.append(f"| {category} | {' | '.join(cells)} |")
    return "\n".join(lines)


def format_evaluation(counts: Dict[str, Dict[str, int]]) -> str:
    lines = [f"{'label':<13} {'gold':>5} {'found':>5} {'P':>6} {'R':>6}"]
    total = {"tp": 0, "fp": 0, "fn": 0}
    for label in (*PLACEHOLDERS, "SENSITIVE"):
        row = counts.get(label, {"tp": 0, "fp": 0, "fn": 0})
        for k in total:
            total[k] += row[k]
        lines.append(_eval_line(label, row))
    lines.append(_eval_line("all", total))
    return "\n".join(lines)


def _eval_line(label: str, row: Dict[str, int]) -> str:
    gold, found = row["tp"] + row["fn"], row["tp"] + row["fp"]
    p = f"{row['tp'] / found:.2f}" if found else "-"
    r = f"{row['tp'] / gold:.2f}" if gold else "-"
    return f"{label:<13} {gold:>5} {found:>5} {p:>6} {r:>6}"


def anonymise_rows(rows, lang: str, nlp: Optional[Language] = None):
    """Sentence-pair rows (corpus.pairs.SentencePair) with both sides anonymised."""
    from dataclasses import replace

    nlp = nlp or anonymiser_pipeline(lang)
    rows = list(rows)
    complex_out = anonymise_texts(nlp, [r.complex for r in rows])
    simple_out = anonymise_texts(nlp, [r.simple for r in rows])
    return [replace(r, complex=c, simple=s) for r, c, s in zip(rows, complex_out, simple_out)]
