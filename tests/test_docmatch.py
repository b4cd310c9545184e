"""Document matching: strategies, blocking + index, input validation, calibration, the
spaCy component, and the Klexikon result docs/results.md and docs/document-matching.md report
(Intersection F1 >= 0.98)."""

import json
import random
from pathlib import Path

import numpy as np
import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.core.errors import InputError
from spacy_simalign.docmatch.calibration import THRESHOLDS, best_threshold, sweep
from spacy_simalign.docmatch.index import UNDATED, candidates
from spacy_simalign.docmatch.strategies import assignment_mask, select, strategy_mask, strategy_names
from spacy_simalign.formats.documents import read_documents

STRATEGIES = strategy_names()

ROOT = Path(__file__).resolve().parent.parent
XLING = ROOT / "tests" / "data" / "xling"


def _all_pairs(sim):
    src, tgt = np.nonzero(np.ones_like(sim, dtype=bool))
    return src, tgt, sim[src, tgt]


def test_strategies_follow_their_definitions():
    rng = np.random.default_rng(3)
    sim = rng.uniform(0, 100, (7, 5)).astype(np.float32)
    src, tgt, scores = _all_pairs(sim)
    picked = {name: {(int(s), int(t)) for s, t, _ in zip(*select(name, src, tgt, scores, 30.0))} for name in STRATEGIES}
    best_t = {(i, int(sim[i].argmax())) for i in range(7) if sim[i].max() >= 30}
    best_s = {(int(sim[:, j].argmax()), j) for j in range(5) if sim[:, j].max() >= 30}
    assert picked["above-threshold"] == {(i, j) for i in range(7) for j in range(5) if sim[i, j] >= 30}
    assert picked["best-source"] == best_t and picked["best-target"] == best_s
    assert picked["union"] == best_t | best_s and picked["intersection"] == best_t & best_s
    assert len({s for s, _ in picked["intersection"]}) == len(picked["intersection"])  # 1:1


def test_strategies_and_indexes_resolve_by_registered_and_short_name():
    """The short names the CLI and configs use are those of the registered (versioned) names."""
    from spacy_simalign.core.registries import doc_strategy_registry
    from spacy_simalign.docmatch.index import FlatIndex, doc_index
    from spacy_simalign.docmatch.matcher import DocMatcher

    assert STRATEGIES == ["above-threshold", "best-source", "best-target", "union", "intersection", "assignment"]
    rng = np.random.default_rng(5)
    src, tgt, scores = _all_pairs(rng.uniform(0, 100, (6, 4)).astype(np.float32))
    for short, registered in (
        ("union", "spacy-simalign.UnionStrategy.v1"),
        ("assignment", "spacy-simalign.AssignmentStrategy.v1"),
    ):
        assert registered in doc_strategy_registry
        assert [a.tolist() for a in select(short, src, tgt, scores, 40.0)] == [
            a.tolist() for a in select(registered, src, tgt, scores, 40.0)
        ]
    assert isinstance(doc_index("spacy-simalign.FlatIndex.v1"), FlatIndex) and isinstance(doc_index("flat"), FlatIndex)
    with pytest.raises(InputError, match="unknown strategy 'best'.*best-source"):
        select("best", src, tgt, scores, 40.0)
    matcher = DocMatcher(
        strategy="spacy-simalign.IntersectionStrategy.v1",
        index="spacy-simalign.IvfIndex.v1",
        rerank="spacy-simalign.SentencesRerank.v1",
    )
    assert matcher.reranker is not None and matcher.index_search.nprobe == 16
    with pytest.raises(InputError, match="unknown index 'annoy'"):
        DocMatcher(index="annoy")


def test_candidates_hold_the_exact_top_k_within_the_date_window():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 16)).astype(np.float32)
    b = rng.standard_normal((250, 16)).astype(np.float32)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    da, db = rng.integers(0, 10, 300), rng.integers(0, 10, 250)
    src, tgt, sim = candidates(a, b, da, db, window=1, k=3)
    assert np.all(np.abs(da[src] - db[tgt]) <= 1)
    np.testing.assert_allclose(sim, np.sum(a[src] * b[tgt], axis=1), atol=1e-5)
    full = a @ b.T
    full[np.abs(da[:, None] - db[None, :]) > 1] = -np.inf
    got = set(zip(src.tolist(), tgt.tolist()))
    for i in range(300):  # each source's best in-window target is a candidate, and vice versa
        assert (i, int(full[i].argmax())) in got
    for j in range(250):
        assert (int(full[:, j].argmax()), j) in got


def test_undated_documents_are_compared_with_every_date():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 8)).astype(np.float32)
    b = np.concatenate([a[:10] + 0.01, rng.standard_normal((10, 8)).astype(np.float32)])
    da = np.full(20, 100, dtype=np.int64)
    db = np.full(20, 200, dtype=np.int64)
    assert len(candidates(a, b, da, db, window=0, k=2)[0]) == 0  # 100 days apart: no candidates
    da[:5] = UNDATED
    src, _, _ = candidates(a, b, da, db, window=0, k=2)
    assert set(src.tolist()) == set(range(5))
    src, _, _ = candidates(a, b, da, db, window=None, k=2)  # blocking off
    assert set(src.tolist()) == set(range(20))


def test_faiss_index_agrees_with_the_exact_search():
    from spacy_simalign.docmatch import index

    rng = np.random.default_rng(2)
    q = rng.standard_normal((500, 32)).astype(np.float32)
    base = rng.standard_normal((3000, 32)).astype(np.float32)
    exact_idx, _ = index._topk_dense(q, base, 5)
    flat_idx, _ = index.FlatIndex().faiss(q, base, 5)
    assert all(set(a) == set(b) for a, b in zip(exact_idx.tolist(), flat_idx.tolist()))


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_indexes_find_near_duplicates(kind):
    from spacy_simalign.docmatch import index

    rng = np.random.default_rng(5)
    centers = rng.standard_normal((50, 32)).astype(np.float32)
    base = centers[rng.integers(0, 50, 4000)] + 0.5 * rng.standard_normal((4000, 32)).astype(np.float32)
    queries = base[:800] + 0.05 * rng.standard_normal((800, 32)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)  # the matcher searches normalised embeddings
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    idx, _ = index.doc_index(kind)(queries, base, 5)
    assert np.mean(idx[:, 0] == np.arange(800)) >= 0.95


def test_sweep_matches_a_direct_count():
    rng = np.random.default_rng(4)
    sim = rng.uniform(0, 100, (30, 30)).astype(np.float32)
    sim[np.arange(30), np.arange(30)] += rng.uniform(0, 40, 30)
    src, tgt, scores = _all_pairs(sim)
    correct = src == tgt
    for name in STRATEGIES:
        table = sweep(name, src, tgt, scores, correct, 30)
        for row in (0, 61, 140, 170):
            keep = np.zeros(len(scores), dtype=bool)
            if name == "assignment":
                keep = assignment_mask(src, tgt, scores, THRESHOLDS[row])
            else:
                keep = strategy_mask(name, src, tgt, scores) & (scores >= THRESHOLDS[row])
            tp = int((keep & correct).sum())
            p = tp / keep.sum() if keep.sum() else 0.0
            assert table[row, 0] == pytest.approx(p) and table[row, 1] == pytest.approx(tp / 30)
        assert table[best_threshold(table), 2] == pytest.approx(table[:, 2].max())


# -- bad input ------------------------------------------------------------------------------


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _docs(tmp_path):
    return [json.loads(line) for line in (XLING / "de.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda rows: rows[1].update(text="   "), "has no text"),
        (lambda rows: rows[2].update(id=rows[0]["id"]), "duplicate id"),
        (lambda rows: rows[1].update(lang="xx"), "unknown language 'xx'"),
        (lambda rows: rows[3].update(lang="fr"), "mixed languages"),
        (lambda rows: rows[2].update(date="15.07.2024"), "malformed date"),
        (lambda rows: rows[2].update(date="2024-02-30"), "invalid date"),
        (lambda rows: rows[1].pop("text"), "missing field 'text'"),
    ],
)
def test_bad_documents_give_one_line_errors_and_no_output(tmp_path, capsys, change, message):
    rows = _docs(tmp_path)
    change(rows)
    bad = _write(tmp_path / "bad.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert main(["match-docs", bad, str(XLING / "fr.jsonl"), str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {bad}:") and message in err and "\n" not in err
    assert not out.exists() and not list(tmp_path.glob(".tmp-*"))


def test_missing_dates_and_allowed_mixed_languages_are_documented_behaviour(tmp_path):
    """A document without a date is compared with every date; --allow-mixed-languages accepts
    a collection that declares several languages."""
    target = [json.loads(line) for line in (XLING / "fr.jsonl").read_text(encoding="utf-8").splitlines()]
    out = tmp_path / "m.jsonl"
    assert main(["match-docs", str(XLING / "de.jsonl"), str(XLING / "fr.jsonl"), str(out)]) == 0
    assert "fr-glacier" not in out.read_text()  # published three days later: outside the same-day window
    for row in target:
        if row["id"] == "fr-glacier":
            del row["date"]
    assert main(["match-docs", str(XLING / "de.jsonl"), _write(tmp_path / "t.jsonl", target), str(out)]) == 0
    assert {"source": "de-gletscher", "target": "fr-glacier"} in [
        {k: m[k] for k in ("source", "target")} for m in map(json.loads, out.read_text().splitlines())
    ]
    target[0]["lang"] = "en"
    assert (
        main(
            [
                "match-docs",
                str(XLING / "de.jsonl"),
                _write(tmp_path / "t.jsonl", target),
                str(out),
                "--allow-mixed-languages",
            ]
        )
        == 0
    )


def test_threshold_auto_without_calibration_is_a_clear_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "m.jsonl"
    assert main(["match-docs", str(XLING / "de.jsonl"), str(XLING / "fr.jsonl"), str(out), "--threshold", "auto"]) == 2
    assert "run calibrate-docs first" in capsys.readouterr().err
    assert not out.exists()


# -- Klexikon: the figure docs/results.md reports -----------------------------------------------


def write_documents(folder, out_dir, seed: int = 13) -> None:
    """out_dir/{source,target,gold}.jsonl of a klexikon-validation folder (klexikon/, wiki/): the
    articles' text (headings dropped, paragraphs split by a blank line) and lead under ids from a
    seeded shuffle, written in id order, so that neither an id nor a line gives a title away."""
    from spacy_simalign.corpus.klexikon import read_article

    titles = sorted(p.stem for p in (folder / "klexikon").glob("*.txt") if (folder / "wiki" / p.name).exists())
    rng = random.Random(seed)
    gold = {}
    for name, side, prefix in (("source", "klexikon", "k"), ("target", "wiki", "w")):
        order = titles[:]
        rng.shuffle(order)
        ids = {t: f"{prefix}{i + 1:04d}" for i, t in enumerate(order)}
        gold[name] = ids
        with open(out_dir / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for title in order:
                paragraphs = read_article(str(folder / side / f"{title}.txt")).paragraphs
                text = "\n\n".join("\n".join(p) for p in paragraphs)
                lead = " ".join(paragraphs[0]) if paragraphs else ""
                record = {"id": ids[title], "lang": "de", "text": text, "lead": lead}
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    with open(out_dir / "gold.jsonl", "w", encoding="utf-8") as handle:
        for title in sorted(titles, key=gold["source"].get):
            handle.write(json.dumps({"source": gold["source"][title], "target": gold["target"][title]}) + "\n")


@pytest.mark.slow
def test_klexikon_intersection_f1_at_calibrated_threshold(shared_data, tmp_path, capsys):
    folder = shared_data("klexikon-validation")
    write_documents(folder, tmp_path)
    titles = {p.stem for p in (folder / "klexikon").glob("*.txt")}
    docs = read_documents(str(tmp_path / "source.jsonl")) + read_documents(str(tmp_path / "target.jsonl"))
    assert len(docs) == 2 * len(titles)
    assert not any(d.title for d in docs) and not {d.id for d in docs} & titles  # titles withheld
    config = tmp_path / "docmatch.cfg"
    assert (
        main(
            [
                "calibrate-docs",
                str(tmp_path / "source.jsonl"),
                str(tmp_path / "target.jsonl"),
                str(tmp_path / "gold.jsonl"),
                "--output-config",
                str(config),
            ]
        )
        == 0
    )
    rows = {line.split("|")[1].strip(): line for line in capsys.readouterr().out.splitlines() if line.startswith("| ")}
    f1 = {name: float(rows[name].split("|")[5]) for name in STRATEGIES}
    assert f1["intersection"] >= 0.98
    # --threshold auto reads the calibrated threshold back and reproduces the F1
    out = tmp_path / "matches.jsonl"
    assert (
        main(
            [
                "match-docs",
                str(tmp_path / "source.jsonl"),
                str(tmp_path / "target.jsonl"),
                str(out),
                "--config",
                str(config),
                "--strategy",
                "intersection",
                "--threshold",
                "auto",
            ]
        )
        == 0
    )
    pred = {(m["source"], m["target"]) for m in map(json.loads, out.read_text().splitlines())}
    gold = {(g["source"], g["target"]) for g in map(json.loads, (tmp_path / "gold.jsonl").read_text().splitlines())}
    tp = len(pred & gold)
    assert 2 * tp / (len(pred) + len(gold)) == pytest.approx(f1["intersection"], abs=1e-3)


# -- spaCy component -----------------------------------------------------------------------------


def test_component_embeds_docs_and_the_matcher_reuses_them(tmp_path):
    import spacy

    from spacy_simalign.docmatch.matcher import DocMatcher

    nlps = {lang: spacy.blank(lang) for lang in ("de", "fr")}
    for nlp in nlps.values():
        nlp.add_pipe("simalign_doc_matcher", config={"fields": ["title", "lead"]})
    sides = {}
    for lang in ("de", "fr"):
        docs = []
        for row in map(json.loads, (XLING / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines()):
            doc = nlps[lang].make_doc(row["text"])
            doc._.doc_id, doc._.doc_title, doc._.doc_date = row["id"], row["title"], row["date"]
            docs.append(doc)
        sides[lang] = list(nlps[lang].pipe(docs))
    assert all(len(d._.doc_embedding) == 512 for d in sides["de"])
    empty = nlps["de"]("")
    assert empty._.doc_embedding is None
    matcher = DocMatcher.from_config(overrides={"docmatch.window_days": 3})
    got = {(m.source, m.target) for m in matcher.match(sides["de"], sides["fr"])}
    gold = {(g["source"], g["target"]) for g in map(json.loads, (XLING / "gold_docs.jsonl").read_text().splitlines())}
    assert got == gold
    nlps["de"].to_disk(tmp_path / "pipe")
    loaded = spacy.load(tmp_path / "pipe")
    assert loaded.pipe_names == ["simalign_doc_matcher"]
    again = loaded.make_doc(sides["de"][0].text)
    again._.doc_title = sides["de"][0]._.doc_title
    np.testing.assert_allclose(loaded(again)._.doc_embedding, sides["de"][0]._.doc_embedding, atol=1e-5)
    unnamed = nlps["de"]("Ein Text ohne Kennung.")
    with pytest.raises(InputError, match="doc_id"):
        matcher.match([unnamed], sides["fr"])


@pytest.mark.parametrize(
    "text, message",
    [
        ("no section header here\n", "cannot read matcher config"),
        ("[other]\nx = 1\n", "no [docmatch] section"),
        (None, "unknown strategy 'best'"),
    ],
)
def test_bad_matcher_config_is_a_one_line_error(tmp_path, capsys, text, message):
    from spacy_simalign.docmatch.matcher import DEFAULT_CONFIG_STR

    config = tmp_path / "docmatch.cfg"
    config.write_text(text if text is not None else DEFAULT_CONFIG_STR.replace('"assignment"', '"best"'))
    out = tmp_path / "m.jsonl"
    assert (
        main(["match-docs", str(XLING / "de.jsonl"), str(XLING / "fr.jsonl"), str(out), "--config", str(config)]) == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {config}:") and message in err and "\n" not in err and not out.exists()


def test_calibration_writes_thresholds_that_threshold_auto_reads(tmp_path, capsys):
    config = tmp_path / "docmatch.cfg"
    args = [str(XLING / "de.jsonl"), str(XLING / "fr.jsonl")]
    assert (
        main(
            [
                "calibrate-docs",
                *args,
                str(XLING / "gold_docs.jsonl"),
                "--output-config",
                str(config),
                "--window-days",
                "3",
                "--strategy",
                "union",
            ]
        )
        == 0
    )
    table = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.split("|")[1:2] and line.split("|")[1].strip() in STRATEGIES
    ]
    assert [row.split("|")[1].strip() for row in table] == list(STRATEGIES)
    from spacy_simalign.docmatch.matcher import DocMatcher

    matcher = DocMatcher.from_config(str(config))
    profile = matcher.profiles["de-fr"]  # the language pair's own profile, written by calibrate-docs
    assert set(profile.thresholds) == set(STRATEGIES) and matcher.strategy == "union"
    assert profile.threshold == profile.thresholds["union"] and matcher.window_days == 3
    out = tmp_path / "m.jsonl"
    assert main(["match-docs", *args, str(out), "--config", str(config), "--threshold", "auto"]) == 0
    f1 = float(next(row for row in table if "union" in row).split("|")[5])
    got = {(m["source"], m["target"]) for m in map(json.loads, out.read_text().splitlines())}
    gold = {(g["source"], g["target"]) for g in map(json.loads, (XLING / "gold_docs.jsonl").read_text().splitlines())}
    assert 2 * len(got & gold) / (len(got) + len(gold)) == pytest.approx(f1, abs=1e-3)


def test_held_out_calibration_embeds_each_document_once(tmp_path):
    """--folds reuses one embedding per document across folds, and scores every strategy."""
    from spacy_simalign.docmatch.calibration import held_out
    from spacy_simalign.docmatch.matcher import DocMatcher
    from spacy_simalign.formats.documents import read_documents
    from spacy_simalign.formats.matches import read_gold_pairs

    matcher = DocMatcher.from_config(None, {"docmatch.window_days": 3, "docmatch.rerank": "none"})
    encoded = []
    encode = matcher.embedder.encode
    matcher.embedder.encode = lambda texts, lang: encoded.extend(texts) or encode(texts, lang)
    source, target = read_documents(str(XLING / "de.jsonl")), read_documents(str(XLING / "fr.jsonl"))
    gold = read_gold_pairs(str(XLING / "gold_docs.jsonl"), {d.id for d in source}, {d.id for d in target})
    results = held_out(matcher, source, target, gold, folds=2)
    assert sorted(r.strategy for r in results) == sorted(STRATEGIES)
    assert len(encoded) == len(source) + len(target)
    assert all(0.0 <= r.f1 <= 1.0 for r in results)


# -- near-duplicate stories, assignment, profiles ------------------------------------------------

NEWS = Path(__file__).resolve().parent / "data" / "xling-news"


def test_defaults_find_every_pair_among_near_duplicate_stories(tmp_path):
    """tests/data/xling-news: 30 German/French pairs in 10 clusters of near-duplicate stories plus
    6 unmatched articles; the defaults (the cross-language profile, sentence evidence, assignment)
    find all 30 and leave the unmatched ones alone."""
    out = tmp_path / "m.jsonl"
    assert main(["match-docs", str(NEWS / "de.jsonl"), str(NEWS / "fr.jsonl"), str(out)]) == 0
    got = {(m["source"], m["target"]) for m in map(json.loads, out.read_text().splitlines())}
    assert got == {(g["source"], g["target"]) for g in map(json.loads, (NEWS / "gold.jsonl").read_text().splitlines())}


def test_assignment_gives_each_near_duplicate_its_own_partner():
    # sources 0 and 1 both score best with target 0; target 1 is 1's true partner
    src, tgt = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    scores = np.array([60.0, 20.0, 58.0, 50.0], dtype=np.float32)
    _, _, kept = select("intersection", src, tgt, scores, 30.0)
    assert len(kept) == 1  # mutual best loses source 1
    s, t, _ = select("assignment", src, tgt, scores, 30.0)
    assert sorted(zip(s.tolist(), t.tolist())) == [(0, 0), (1, 1)]
    s, t, _ = select("assignment", src, tgt, scores, 55.0)  # (1, 1) below the threshold: left unmatched
    assert sorted(zip(s.tolist(), t.tolist())) == [(0, 0)]


def test_profiles_follow_the_language_pair_and_calibration_writes_its_own(tmp_path, capsys):
    from spacy_simalign.docmatch.matcher import DocMatcher

    matcher = DocMatcher()  # works with no arguments: the multilingual USE embedder, the default profiles
    source, target = read_documents(str(NEWS / "de.jsonl")), read_documents(str(NEWS / "fr.jsonl"))
    assert matcher.profile(source, target) is matcher.profiles["cross"]
    assert matcher.profile(source, source) is matcher.profiles["same"]
    assert matcher.profiles["cross"].lexical == "none" and matcher.profiles["same"].lexical == "tfidf"
    config = tmp_path / "docmatch.cfg"
    assert (
        main(
            [
                "calibrate-docs",
                str(NEWS / "de.jsonl"),
                str(NEWS / "fr.jsonl"),
                str(NEWS / "gold.jsonl"),
                "--output-config",
                str(config),
            ]
        )
        == 0
    )
    assert "Signals tried for assignment" in capsys.readouterr().out
    calibrated = DocMatcher.from_config(str(config))
    assert calibrated.profile(source, target) is calibrated.profiles["de-fr"]
    assert calibrated.profiles["de-fr"].thresholds["assignment"] == calibrated.profiles["de-fr"].threshold


def test_evidence_ranks_the_true_report_above_its_near_duplicate():
    """Within the satellite cluster, each German report's sentence evidence is highest with its own
    French report, though the first stage (title + lead) may prefer a sibling story."""
    from spacy_simalign.docmatch.evidence import SentenceEvidence
    from spacy_simalign.similarity.backends import make_use_similarity

    clusters = json.loads((NEWS / "clusters.json").read_text(encoding="utf-8"))
    gold = dict((g["source"], g["target"]) for g in map(json.loads, (NEWS / "gold.jsonl").read_text().splitlines()))
    by_id = {d.id: d for d in read_documents(str(NEWS / "de.jsonl")) + read_documents(str(NEWS / "fr.jsonl"))}
    evidence = SentenceEvidence(make_use_similarity())
    for cluster in clusters.values():
        de = [by_id[i] for i in cluster["de"] if i in gold]
        fr = [by_id[i] for i in cluster["fr"]]
        src = np.repeat(np.arange(len(de)), len(fr))
        tgt = np.tile(np.arange(len(fr)), len(de))
        scores = evidence.score(de, fr, src, tgt).reshape(len(de), len(fr))
        for k, doc in enumerate(de):
            assert fr[int(scores[k].argmax())].id == gold[doc.id]


def test_null_text_and_duplicate_match_lines_are_located_errors(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "lang": "de", "text": null}\n', encoding="utf-8")
    assert main(["match-docs", str(bad), str(NEWS / "fr.jsonl"), str(tmp_path / "m.jsonl")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {bad}:1: 'text' must be a string, got NoneType"
    matches = tmp_path / "matches.jsonl"
    line = (
        json.dumps(
            {
                "source": "de-01",
                "target": next(
                    g["target"]
                    for g in map(json.loads, (NEWS / "gold.jsonl").read_text().splitlines())
                    if g["source"] == "de-01"
                ),
            }
        )
        + "\n"
    )
    matches.write_text(line + line, encoding="utf-8")
    assert (
        main(
            [
                "align-xling",
                str(matches),
                str(tmp_path / "a.jsonl"),
                "--source",
                str(NEWS / "de.jsonl"),
                "--target",
                str(NEWS / "fr.jsonl"),
            ]
        )
        == 2
    )
    assert f"error: {matches}:2: duplicate match de-01 -> " in capsys.readouterr().err
    assert not (tmp_path / "a.jsonl").exists()


V1_CONFIG = """[docmatch]
@misc = "spacy-simalign.DocMatcher.v1"
strategy = "intersection"
threshold = 20.0
lexical = "tfidf"
lexical_weight = 0.25

[docmatch.embedder]
@simalign_similarity = "spacy-simalign.USESimilarity.v1"
"""


def test_per_pair_options_reach_every_profile_and_keep_a_calibrated_weight(tmp_path):
    """--lexical and --rerank-weight are options for every language pair: they set the built-in
    profiles as well as a config's own, and a lexical weight the profile has stays."""
    from argparse import Namespace

    from spacy_simalign.docmatch.cli import load_matcher

    config = tmp_path / "docmatch.cfg"
    config.write_text(
        '[docmatch]\n@misc = "spacy-simalign.DocMatcher.v2"\n\n[docmatch.profiles]\n\n'
        '[docmatch.profiles.de-fr]\nlexical = "none"\nlexical_weight = 0.25\nrerank_weight = 1.0\n'
        "threshold = 30.0\n"
    )
    options = dict(
        config=str(config),
        strategy=None,
        fields=None,
        window_days=None,
        top_k=None,
        index=None,
        lexical="tfidf",
        lexical_weight=None,
        rerank=None,
        rerank_weight=0.5,
        embedder=None,
        allow_mixed_languages=False,
    )
    matcher, written, _ = load_matcher(Namespace(**options))
    assert {name: (p.lexical, p.lexical_weight, p.rerank_weight) for name, p in matcher.profiles.items()} == {
        "de-fr": ("tfidf", 0.25, 0.5),
        "same": ("tfidf", 0.5, 0.5),
        "cross": ("tfidf", 0.5, 0.5),
    }
    assert written["docmatch"]["profiles"]["de-fr"]["lexical_weight"] == 0.25
    assert matcher.profiles["de-fr"].threshold == 30.0


def test_a_v1_config_takes_lexical_options_and_calibrates_into_a_v1_config(tmp_path, capsys):
    config, written = tmp_path / "v1.cfg", tmp_path / "out.cfg"
    config.write_text(V1_CONFIG)
    args = [str(XLING / "de.jsonl"), str(XLING / "fr.jsonl")]
    out = tmp_path / "m.jsonl"
    assert main(["match-docs", *args, str(out), "--config", str(config), "--lexical", "names-numbers"]) == 0
    assert main(["match-docs", *args, str(out), "--config", str(config), "--rerank", "none"]) == 2
    assert "--rerank needs a spacy-simalign.DocMatcher.v2 config" in capsys.readouterr().err
    assert (
        main(
            [
                "calibrate-docs",
                *args,
                str(XLING / "gold_docs.jsonl"),
                "--config",
                str(config),
                "--output-config",
                str(written),
                "--thresholds-only",
            ]
        )
        == 0
    )
    from spacy_simalign.docmatch.matcher import DocMatcher

    matcher = DocMatcher.from_config(str(written))
    assert matcher.profiles["same"].lexical_weight == 0.25 and set(matcher.profiles["same"].thresholds) == set(
        STRATEGIES
    )
    assert main(["match-docs", *args, str(out), "--config", str(written), "--threshold", "auto"]) == 0


def test_an_empty_collection_matches_nothing(tmp_path, capsys):
    """An empty collection is valid input to match-docs, as empty sides are to align: an empty
    matches file, a note on stderr, exit 0."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["match-docs", str(XLING / "de.jsonl"), str(empty), str(out), "--threshold", "auto"]) == 0
    assert out.read_text(encoding="utf-8") == ""
    err = capsys.readouterr().err
    assert err == f"note: no documents in {empty}: 0 matches -> {out}\n"
    assert main(["calibrate-docs", str(empty), str(empty), str(empty)]) == 2  # calibrating needs documents
    assert f"error: {empty}: no documents" in capsys.readouterr().err
