"""`evaluate --exclude-identical`: Wiki-Manual's Task 1 protocol (Jiang et al. 2020). Links between two
sentences that are the same string (surrounding whitespace stripped) leave both gold and prediction;
every other link, and the bead-text and paragraph figures, stay as without the option."""

import json
import subprocess
import sys

import pytest

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.scoring import identical_links

WIKIMANUAL = "wikimanual-dev/pairs.jsonl"

# complex 0 and simple 0 are identical and gold; complex 2 and simple 2 are identical, not gold, and
# predicted; complex 3 / simple 3 differ by case only, so they are no identical pair.
PAIR = {
    "id": "constructed",
    "lang": "en",
    "complex": {"paragraphs": [["Alpha is a town.", "It is old."], ["Beta is a river.", "Gamma is a hill."]]},
    "simple": {"paragraphs": [["Alpha is a town.", "It is very old."], ["Beta is a river.", "gamma is a hill."]]},
    "gold": [[[0], [0]], [[1], [1]], [[3], [3]]],
}
PREDICTED = {"id": "constructed", "alignments": [{"complex": [i], "simple": [i], "score": 0.9} for i in (0, 2, 3)]}


def write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def scored(tmp_path, gold, predicted, *options):
    out = tmp_path / "scores.json"
    assert main(["evaluate", gold, predicted, "--output", str(out), *options]) == 0
    return json.loads(out.read_text())


def test_identical_links_are_the_same_string_after_strip():
    complex_sents, simple_sents = [" Same.\n", "Same.", "Same  again."], ["Same.", "same.", "Same again."]
    links = {(c, s) for c in range(3) for s in range(3)}
    assert identical_links(links, complex_sents, simple_sents) == {(0, 0), (1, 0)}


def test_identical_links_leave_gold_and_prediction_and_nothing_else(tmp_path, capsys):
    gold, predicted = write(tmp_path / "gold.jsonl", [PAIR]), write(tmp_path / "pred.jsonl", [PREDICTED])
    plain = scored(tmp_path, gold, predicted)
    task1 = scored(tmp_path, gold, predicted, "--exclude-identical")
    # all links: gold {00, 11, 33}, predicted {00, 22, 33}: 2 right of 3 and 3
    assert plain["link"] == {"p": 0.6667, "r": 0.6667, "f": 0.6667} and "identical_links_left_out" not in plain
    # 00 leaves both sides, 22 the prediction: gold {11, 33}, predicted {33}
    assert task1["link"] == {"p": 1.0, "r": 0.5, "f": 0.6667}
    assert task1["identical_links_left_out"] == {"gold": 1, "predicted": 2}
    assert (task1["bead_text"], task1["paragraph"]) == (plain["bead_text"], plain["paragraph"])
    assert "| link, identical left out | 1.000 | 0.500 | 0.667 |" in capsys.readouterr().out


def test_detail_scores_each_pair_and_shape_by_the_same_protocol(tmp_path):
    gold, predicted = write(tmp_path / "gold.jsonl", [PAIR]), write(tmp_path / "pred.jsonl", [PREDICTED])
    task1 = scored(tmp_path, gold, predicted, "--exclude-identical", "--detail")
    (row,) = task1["documents"]
    assert row["link"] == task1["link"]
    assert task1["shapes"]["1:1"] == {"beads": 3, "link_recall": 0.5, "exact_recall": 2 / 3}


def test_wikimanual_gold_without_its_identical_links_is_perfect_by_task1_only(tmp_path, shared_data):
    """On the real gold: predicting every gold link but the identical ones loses recall on plain link
    F1 and nothing by Task 1, which leaves those links out of the gold as well."""
    path = shared_data(WIKIMANUAL)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    predictions, dropped = [], 0
    for row in rows:
        c = [s for p in row["complex"]["paragraphs"] for s in p]
        s = [t for p in row["simple"]["paragraphs"] for t in p]
        links = {(i, j) for ci, si in row["gold"] for i in ci for j in si}
        kept = sorted(links - identical_links(links, c, s))
        dropped += len(links) - len(kept)
        beads = [{"complex": [i], "simple": [j], "score": 1.0} for i, j in kept]
        predictions.append({"id": row["id"], "alignments": beads})
    predicted = write(tmp_path / "pred.jsonl", predictions)
    plain = scored(tmp_path, str(path), predicted)
    task1 = scored(tmp_path, str(path), predicted, "--exclude-identical")
    assert dropped == task1["identical_links_left_out"]["gold"] == 67
    assert plain["link"]["p"] == 1.0 and plain["link"]["r"] < 1.0
    assert task1["link"] == {"p": 1.0, "r": 1.0, "f": 1.0}


@pytest.mark.slow
def test_default_align_on_wikimanual_dev_scores_its_figures_by_both_protocols(tmp_path, shared_data):
    """The default align (CRFAligner.v3) on Wiki-Manual dev (docs/results.md): link F1 0.852, and by
    Task 1 0.811."""
    path = shared_data(WIKIMANUAL)
    aligned = tmp_path / "aligned.jsonl"
    command = [sys.executable, "-m", "spacy_simalign", "align", str(path), str(aligned)]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    plain = scored(tmp_path, str(path), str(aligned))
    task1 = scored(tmp_path, str(path), str(aligned), "--exclude-identical", "--detail")
    assert plain["link"]["f"] == pytest.approx(0.8515, abs=0.0005)
    assert (task1["link"]["p"], task1["link"]["r"]) == pytest.approx((0.884, 0.749), abs=0.0005)
    assert task1["link"]["f"] == pytest.approx(0.811, abs=0.0005)
    assert task1["bead_text"] == plain["bead_text"]
