"""Corpus statistics: AlignRatio, aligned-length Pearson, position Kendall, correlations with
document similarity, the histogram, and bad input; checked against scipy on real alignments."""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import kendalltau, pearsonr

from spacy_simalign.__main__ import main
from spacy_simalign.core.structures import Bead
from spacy_simalign.evaluation.corpus_stats import corpus_correlations, pair_stats, read_aligned

XLING = Path(__file__).resolve().parent / "data" / "xling"


def test_pair_statistics_follow_their_definitions(deplain_pairs):
    pair = deplain_pairs[0]
    src = [s for p in pair["complex"]["paragraphs"] for s in p]
    tgt = [s for p in pair["simple"]["paragraphs"] for s in p]
    beads = [Bead.from_json(b) for b in pair["gold"]]
    stats = pair_stats(pair["id"], src, tgt, beads, 0.5)
    assert stats.align_ratio_source == pytest.approx(len({i for b in beads for i in b.complex}) / len(src))
    assert stats.align_ratio_target == pytest.approx(len({j for b in beads for j in b.simple}) / len(tgt))
    lengths = (
        [sum(len(src[i]) for i in b.complex) for b in beads],
        [sum(len(tgt[j]) for j in b.simple) for b in beads],
    )
    assert stats.length_pearson == pytest.approx(pearsonr(*lengths).statistic)
    positions = ([min(b.complex) for b in beads], [min(b.simple) for b in beads])
    assert stats.position_kendall == pytest.approx(kendalltau(*positions).statistic)


def test_kendall_tells_monotone_from_reversed_and_undefined_is_nan():
    sents = ["a" * n for n in (10, 20, 30, 40)]
    forward = pair_stats("f", sents, sents, [Bead((i,), (i,)) for i in range(4)])
    backward = pair_stats("b", sents, sents, [Bead((i,), (3 - i,)) for i in range(4)])
    assert forward.position_kendall == pytest.approx(1.0) and backward.position_kendall == pytest.approx(-1.0)
    assert forward.length_pearson == pytest.approx(1.0) and backward.length_pearson == pytest.approx(-1.0)
    one = pair_stats("o", sents, sents, [Bead((0,), (1,))])
    assert math.isnan(one.position_kendall) and math.isnan(one.length_pearson)
    assert one.align_ratio_source == 0.25 and one.to_json()["position_kendall"] is None


def test_corpus_correlation_with_document_similarity():
    sents = ["x" * 10] * 10
    stats = [pair_stats(str(k), sents, sents, [Bead((i,), (i,)) for i in range(k)], k / 10) for k in range(2, 9)]
    corr = corpus_correlations(stats)
    assert corr["align_ratio_source"]["pearson"] == pytest.approx(1.0)
    assert corr["align_ratio_source"]["n"] == 7
    assert math.isnan(corr["position_kendall"]["pearson"])  # constant 1.0


def test_stats_command_on_an_aligned_german_french_corpus(tmp_path, capsys, xling_aligned):
    _, aligned = xling_aligned
    png, per_pair = tmp_path / "h.png", tmp_path / "p.jsonl"
    capsys.readouterr()
    assert main(["stats", str(aligned), "--histogram", str(png), "--per-pair", str(per_pair), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pairs"] == 5
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [json.loads(line) for line in per_pair.read_text().splitlines()]
    records = [json.loads(line) for line in aligned.read_text(encoding="utf-8").splitlines()]
    for row, rec in zip(rows, records):
        assert row["n_source"] == len(rec["complex_sentences"]) and row["doc_similarity"] == rec["doc_score"]
    ratios = np.array([r["align_ratio_target"] for r in rows])
    sims = np.array([r["doc_similarity"] for r in rows])
    assert summary["statistics"]["align_ratio_target"]["pearson"] == pytest.approx(pearsonr(ratios, sims).statistic)


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"id": "x", "alignments": []}', "complex_sentences"),
        (
            '{"id": "x", "alignments": [{"complex": [5], "simple": [0]}], "complex_sentences": ["a"], "simple_sentences": ["b"]}',
            "out of range",
        ),
        (
            '{"id": "x", "alignments": [], "complex_sentences": ["a"], "simple_sentences": ["b"], "doc_score": "high"}',
            "must be a number",
        ),
        (
            '{"id": "x", "alignments": [{"complex": [true], "simple": [0]}], "complex_sentences": ["a"], '
            '"simple_sentences": ["b"]}',
            "list of integers",
        ),
        (
            '{"id": "x", "alignments": [{"complex": [0], "simple": [0], "score": "0.5"}], "complex_sentences": ["a"], '
            '"simple_sentences": ["b"]}',
            "score must be a number",
        ),
        (
            '{"id": "x", "alignments": [{"complex": [0], "simple": [0]}], "complex_sentences": [1, 2], '
            '"simple_sentences": [3.5]}',
            "'complex_sentences' must be a list of strings",
        ),
    ],
)
def test_bad_alignment_files_are_located_errors(tmp_path, capsys, line, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(line + "\n")
    png = tmp_path / "h.png"
    assert main(["stats", str(path), "--histogram", str(png)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1:" in err and message in err and not png.exists()


def test_histogram_needs_document_similarities(tmp_path, capsys):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": "x", "alignments": [], "complex_sentences": ["a"], "simple_sentences": ["b"]}\n')
    assert main(["stats", str(path), "--histogram", str(tmp_path / "h.png")]) == 2
    assert "doc_score" in capsys.readouterr().err
    assert len(read_aligned(str(path))) == 1


def test_histogram_axis_says_what_the_similarity_is(tmp_path):
    """Match-docs' score mixes TF-IDF into the cosine; the axis must not say "cosine"."""
    import matplotlib.pyplot as plt

    from spacy_simalign.evaluation.corpus_stats import similarity_figure

    path = tmp_path / "a.jsonl"
    path.write_text(
        '{"id": "x", "alignments": [], "complex_sentences": ["a"], "simple_sentences": ["b"], '
        '"doc_score": 0.5, "my_sim": 0.25}\n'
    )
    for field, label in (
        ("doc_score", "match-docs score x 100 (embedding cosine mixed with TF-IDF by default)"),
        ("my_sim", "document similarity: 'my_sim' x 100"),
    ):
        fig = similarity_figure(read_aligned(str(path), field), field)
        xlabel = fig.axes[0].get_xlabel()
        plt.close(fig)
        assert label in xlabel and "cosine x 100" not in xlabel
    assert main(["stats", str(path), "--histogram", str(tmp_path / "h.png"), "--similarity-field", "my_sim"]) == 0
    assert (tmp_path / "h.png").read_bytes().startswith(b"\x89PNG")
