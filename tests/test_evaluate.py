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


def without_gold(obj, given):
    """A copy of a DEplain pair with no gold, its sides given pre-segmented or as raw text."""
    pair = {"id": obj["id"], "lang": "de"}
    for name in ("complex", "simple"):
        paragraphs = obj[name]["paragraphs"]
        pair[name] = {"paragraphs": paragraphs} if given == "paragraphs" else {"text": side_text(paragraphs)}
    return pair


def side_text(paragraphs):
    return "\n\n".join(" ".join(p) for p in paragraphs)


def swapped(pair, paragraphs, given):
    """The pair with two neighbouring complex sentences swapped and its gold re-indexed: the edit
    of a gold pair after predicting."""
    p = next(k for k, para in enumerate(paragraphs) if len(para) > 1 and para[0] != para[1])
    i = sum(len(para) for para in paragraphs[:p])
    edited = [list(para) for para in paragraphs]
    edited[p][:2] = edited[p][1::-1]
    swap = {i: i + 1, i + 1: i}
    gold = [[[swap.get(k, k) for k in c], s] for c, s in pair["gold"]]
    side = {"paragraphs": edited} if given == "paragraphs" else {"text": side_text(edited)}
    return dict(pair, complex=side, gold=gold)


def write_pair(path, pair):
    path.write_text(json.dumps(pair, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("given", ["paragraphs", "text"])
def test_a_prediction_of_a_pair_whose_sentences_changed_since_is_refused(tmp_path, deplain_pairs, capsys, given):
    """A pair aligned, then given gold (the predicted beads: a perfect score) and a license, still
    scores; with two of its sentences swapped since and its gold re-indexed the prediction is
    stale: one line naming the pair and both files, status 2, nothing written, from the command
    and from Python alike."""
    from spacy_simalign.core.errors import InputError
    from spacy_simalign.evaluation.files import evaluate_files

    pair = without_gold(deplain_pairs[0], given)
    pred = tmp_path / "pred.jsonl"
    assert main(["align", str(write_pair(tmp_path / "pairs.jsonl", pair)), str(pred), "--method", "tfidf"]) == 0
    line = json.loads(pred.read_text(encoding="utf-8"))
    gold_pair = dict(pair, license="CC BY-SA 4.0", gold=[[b["complex"], b["simple"]] for b in line["alignments"]])
    gold = write_pair(tmp_path / "gold.jsonl", gold_pair)
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(gold), str(pred), "--output", str(out)]) == 0
    assert json.loads(out.read_text())["link"]["f"] == 1.0
    assert evaluate_files(str(gold), str(pred))["link"]["f"] == 1.0
    capsys.readouterr()

    edited = write_pair(tmp_path / "edited.jsonl", swapped(gold_pair, deplain_pairs[0]["complex"]["paragraphs"], given))
    before = {path: path.read_bytes() for path in (edited, pred)}
    assert main(["evaluate", str(edited), str(pred), "--output", str(tmp_path / "stale.json")]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: {pred}:1: the complex sentences of pair '{pair['id']}' are not the pair's in {edited} "
        "(was it edited since it was aligned?): align the pair again\n"
    )
    assert not (tmp_path / "stale.json").exists()
    assert {path: path.read_bytes() for path in before} == before
    with pytest.raises(InputError, match=f"the complex sentences of pair '{pair['id']}' are not the pair's"):
        evaluate_files(str(edited), str(pred))


def test_a_prediction_that_does_not_record_its_sentences_is_read_as_before(tmp_path, deplain_pairs, capsys):
    """A line an older version wrote (no `made_from.sentences`) of a pre-segmented pair edited since
    cannot be told stale: it is indexed in the pair's sentences, as it always was."""
    pair = without_gold(deplain_pairs[0], "paragraphs")
    pred = tmp_path / "pred.jsonl"
    assert main(["align", str(write_pair(tmp_path / "pairs.jsonl", pair)), str(pred), "--method", "tfidf"]) == 0
    line = json.loads(pred.read_text(encoding="utf-8"))
    del line["made_from"]["sentences"]
    older = predictions(tmp_path / "older.jsonl", [line])
    gold_pair = dict(pair, gold=deplain_pairs[0]["gold"])
    edited = write_pair(tmp_path / "edited.jsonl", swapped(gold_pair, pair["complex"]["paragraphs"], "paragraphs"))
    assert main(["evaluate", str(edited), str(older)]) == 0
    assert main(["evaluate", str(edited), str(pred)]) == 2


def test_predicted_ids_not_in_the_gold_are_counted_in_a_note(gold, tmp_path, capsys):
    path, objs = gold
    lines = perfect(objs) + [{"id": "not-in-the-gold", "alignments": [{"complex": [0], "simple": [0]}]}]
    pred = predictions(tmp_path / "pred.jsonl", lines)
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(path), str(pred), "--output", str(out)]) == 0
    captured = capsys.readouterr()
    assert captured.err == f"note: {pred}: 1 predicted id is not in {path}, left out of the scores\n"
    scores = json.loads(out.read_text())
    assert scores["predictions_not_in_gold"] == 1 and scores["link"]["f"] == 1.0
    assert main(["evaluate", str(path), str(predictions(tmp_path / "all.jsonl", perfect(objs)))]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("content", ["", "\n\n"])
def test_a_gold_file_with_no_pair_is_refused(gold, tmp_path, capsys, content):
    """No pair to score against would score as zeros with status 0: refused in one line."""
    from spacy_simalign.core.errors import InputError
    from spacy_simalign.evaluation.files import evaluate_files

    _, objs = gold
    empty = tmp_path / "empty.jsonl"
    empty.write_text(content, encoding="utf-8")
    pred = predictions(tmp_path / "pred.jsonl", perfect(objs))
    out = tmp_path / "scores.json"
    assert main(["evaluate", str(empty), str(pred), "--output", str(out)]) == 2
    assert capsys.readouterr().err == f"error: {empty}: no pair to score against: the gold file holds no pair\n"
    assert not out.exists() and empty.read_text(encoding="utf-8") == content
    with pytest.raises(InputError, match="no pair to score against"):
        evaluate_files(str(empty), str(pred))
