"""`evaluate` checks every prediction like any alignment file: a bad one is one line
`error: FILE:LINE: ...` with exit status 2, never a traceback or a silently wrong score."""

import json

import pytest

from spacy_simalign.__main__ import main


@pytest.fixture
def gold(tmp_path, deplain_pairs):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in deplain_pairs[:2]), encoding="utf-8")
    return path, deplain_pairs[:2]


def predictions(path, lines):
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def perfect(objs):
    return [
        {"id": o["id"], "alignments": [{"complex": c, "simple": s, "score": 1.0} for c, s in o["gold"]]} for o in objs
    ]


def test_perfect_predictions_score_one(gold, tmp_path, capsys):
    path, objs = gold
    pred = predictions(tmp_path / "pred.jsonl", perfect(objs))
    assert main(["evaluate", str(path), str(pred), "--output", str(tmp_path / "scores.json")]) == 0
    scores = json.loads((tmp_path / "scores.json").read_text())
    assert scores["link"]["f"] == 1.0 and scores["bead_text"]["f"] == 1.0


@pytest.mark.parametrize(
    "bead, message",
    [
        ({"complex": [10_000], "simple": [0]}, "complex index 10000 is out of range"),
        ({"complex": [0], "simple": [-1]}, "simple index -1 is negative"),
        ({"complex": [-1], "simple": [-1]}, "index -1 is negative"),
        ({"complex": [True], "simple": [0]}, "must be a list of integers"),
        ({"complex": ["0"], "simple": [0]}, "must be a list of integers"),
        ({"complex": [0.0], "simple": [0]}, "must be a list of integers"),
        ({"complex": [0, 0], "simple": [0]}, "repeats a complex index"),
        ({"complex": [0], "simple": [0], "score": "high"}, "score must be a number"),
    ],
)
def test_bad_predicted_bead_is_a_located_error(gold, tmp_path, capsys, bead, message):
    path, objs = gold
    lines = perfect(objs)
    lines[1]["alignments"].append(bead)
    pred = predictions(tmp_path / "pred.jsonl", lines)
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(path), str(pred), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {pred}:2: ") and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_repeated_bead_and_repeated_id_are_errors_not_double_counts(gold, tmp_path, capsys):
    path, objs = gold
    lines = perfect(objs)
    lines[0]["alignments"].append(dict(lines[0]["alignments"][0]))
    assert main(["evaluate", str(path), str(predictions(tmp_path / "a.jsonl", lines))]) == 2
    assert "repeats bead 0" in capsys.readouterr().err
    lines = perfect(objs) + perfect(objs)[:1]
    assert main(["evaluate", str(path), str(predictions(tmp_path / "b.jsonl", lines))]) == 2
    assert f"error: {tmp_path / 'b.jsonl'}:3: duplicate id" in capsys.readouterr().err


def test_raw_text_gold_beyond_the_predicted_sentences_is_a_located_error(tmp_path, deplain_pairs, capsys):
    obj = json.loads(json.dumps(deplain_pairs[0]))
    sentences = [s for p in obj["simple"]["paragraphs"] for s in p]
    obj["simple"] = {"text": " ".join(sentences)}
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(obj, ensure_ascii=False) + "\n", encoding="utf-8")
    line = perfect([deplain_pairs[0]])[0]
    line["simple_sentences"] = [sentences[0], " ".join(sentences[1:])]  # the text split into two sentences only
    line["alignments"] = [b for b in line["alignments"] if max(b["simple"]) < 2]
    assert main(["evaluate", str(gold), str(predictions(tmp_path / "pred.jsonl", [line]))]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {gold}:1: 'gold[") and "raw-text side has 2 sentences" in err


GOLD_DEFECTS = {
    "empty-complex-side": ([[], [0]], "'gold[1]' has no complex sentence"),
    "empty-simple-side": ([[0], []], "'gold[1]' has no simple sentence"),
    "repeated-bead": (None, "'gold[1]' repeats bead 0"),
    "negative": ([[-1], [0]], "'gold[1]' complex index -1 is negative"),
    "boolean": ([[True], [0]], "'gold[1]' complex indices must be a list of integers"),
}


@pytest.mark.parametrize("defect", sorted(GOLD_DEFECTS))
@pytest.mark.parametrize("reader", ["align", "evaluate", "review"])
def test_one_bead_rule_for_gold_in_align_evaluate_and_review(tmp_path, capsys, deplain_pairs, reader, defect):
    """The same bad gold bead is refused with the same message whichever command reads it."""
    from spacy_simalign.review.app import create_app

    obj = json.loads(json.dumps(deplain_pairs[0]))
    bead, message = GOLD_DEFECTS[defect]
    obj["gold"] = [obj["gold"][0], bead if bead is not None else obj["gold"][0]] + obj["gold"][1:]
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps(obj, ensure_ascii=False) + "\n", encoding="utf-8")
    if reader == "review":
        with pytest.raises(ValueError, match=rf"^{gold}:1: ") as refused:
            create_app(str(gold))
        assert message in str(refused.value)
        good = json.loads(json.dumps(deplain_pairs[0]))
        gold.write_text(json.dumps(good, ensure_ascii=False) + "\n", encoding="utf-8")
        client = create_app(str(gold)).test_client()
        client.environ_base["HTTP_X_REVIEW_TOKEN"] = client.application.config["TOKEN"]
        etag = client.get(f"/api/pairs/{good['id']}").get_json()["etag"]
        response = client.put(
            f"/api/pairs/{good['id']}/gold", json={"gold": obj["gold"]}, headers={"If-Match": f'"{etag}"'}
        )
        assert response.status_code == 400 and message in response.get_json()["error"]
        return
    if reader == "align":
        argv = ["align", str(gold), str(tmp_path / "out.jsonl"), "--method", "tfidf"]
    else:
        argv = ["evaluate", str(gold), str(predictions(tmp_path / "pred.jsonl", perfect([deplain_pairs[0]])))]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {gold}:1: ") and message in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "out.jsonl").exists()


def test_detail_gives_each_pair_the_figures_it_gets_alone_worst_first(tmp_path, deplain_pairs, capsys):
    """--detail: each pair's row is what evaluating that pair alone gives; the pair with no prediction
    comes first, a degraded one next, a perfect one last; shape recall counts every gold bead."""
    objs = deplain_pairs[:3]
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    perfect_first, degraded = perfect(objs[:2])
    degraded["alignments"] = degraded["alignments"][::2]
    pred = predictions(tmp_path / "pred.jsonl", [perfect_first, degraded])
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(gold), str(pred), "--detail", "--output", str(out)]) == 0
    printed = capsys.readouterr().out
    scores = json.loads(out.read_text())
    rows = scores["documents"]
    assert [d["id"] for d in rows] == [objs[2]["id"], objs[1]["id"], objs[0]["id"]]
    assert not rows[0]["predicted"] and rows[0]["bead_text"]["f"] == 0.0 and "no prediction" in printed
    assert rows[2]["bead_text"]["f"] == 1.0 and 0.0 < rows[1]["bead_text"]["f"] < 1.0
    for obj in objs[:2]:
        alone = tmp_path / f"{obj['id']}.jsonl"
        alone.write_text(json.dumps(obj, ensure_ascii=False) + "\n", encoding="utf-8")
        assert main(["evaluate", str(alone), str(pred), "--output", str(tmp_path / "alone.json")]) == 0
        own = json.loads((tmp_path / "alone.json").read_text())
        row = next(d for d in rows if d["id"] == obj["id"])
        assert (row["link"], row["bead_text"]) == (own["link"], own["bead_text"])
    assert sum(s["beads"] for s in scores["shapes"].values()) == sum(len(o["gold"]) for o in objs)
    capsys.readouterr()
    assert main(["evaluate", str(gold), str(pred)]) == 0
    assert "worst first" not in capsys.readouterr().out  # the plain table stays as it was
