"""The review app through Flask's test client: load pairs, save gold with versions, refuse stale
or bad saves, keep the rest of the file byte for byte, and write atomically."""

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import DEPLAIN_PAIRS, write_jsonl

from spacy_simalign.core.errors import OutputError
from spacy_simalign.core.structures import Side
from spacy_simalign.formats import jsonl
from spacy_simalign.formats.pair_jsonl import read_pairs
from spacy_simalign.review.app import create_app
from spacy_simalign.review.store import Conflict, PairStore


@pytest.fixture()
def files(tmp_path, deplain_pairs):
    """Six real pairs; the last two have no gold yet, and an alignment file (made from their gold,
    with scores) stands in for the aligner's output."""
    source = DEPLAIN_PAIRS
    pairs = tmp_path / "pairs.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)[:6]
    for k in (4, 5):
        obj = json.loads(lines[k])
        del obj["gold"]
        lines[k] = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
    pairs.write_bytes(b"".join(lines))
    alignments = tmp_path / "alignments.jsonl"
    write_jsonl(
        alignments,
        [
            {"id": o["id"], "alignments": [{"complex": c, "simple": s, "score": 0.6} for c, s in o["gold"]]}
            for o in deplain_pairs[4:6]
        ],
    )
    return pairs, alignments, deplain_pairs[:6]


def token_client(app):
    """A test client that sends the run's token with every request, as the page does."""
    client = app.test_client()
    client.environ_base["HTTP_X_REVIEW_TOKEN"] = app.config["TOKEN"]
    return client


@pytest.fixture()
def client(files):
    pairs, alignments, _ = files
    return token_client(create_app(str(pairs), str(alignments)))


def put_gold(client, pair_id, gold, etag):
    return client.put(f"/api/pairs/{pair_id}/gold", json={"gold": gold}, headers={"If-Match": f'"{etag}"'})


def test_page_and_pair_list(client, files):
    _, _, objs = files
    page = client.get("/")
    assert page.status_code == 200 and b"Review alignments" in page.data and b"review.js" in page.data
    assert client.get("/static/review.js").status_code == 200
    listing = client.get("/api/pairs").get_json()
    assert [p["id"] for p in listing["pairs"]] == [o["id"] for o in objs]
    assert [p["gold"] for p in listing["pairs"]] == [True] * 4 + [False] * 2


def test_pair_shows_gold_or_else_the_alignments(client, files):
    _, _, objs = files
    with_gold = client.get(f"/api/pairs/{objs[0]['id']}")
    data = with_gold.get_json()
    assert data["source"] == "gold" and with_gold.headers["ETag"].strip('"') == data["etag"]
    assert [[b["complex"], b["simple"]] for b in data["beads"]] == objs[0]["gold"]
    assert data["complex"]["sentences"] == [s for p in objs[0]["complex"]["paragraphs"] for s in p]
    no_gold = client.get(f"/api/pairs/{objs[4]['id']}").get_json()
    assert no_gold["source"] == "alignments" and {b["score"] for b in no_gold["beads"]} == {0.6}
    assert client.get("/api/pairs/no-such-id").status_code == 404


def test_save_changes_only_that_gold_and_training_reads_it(client, files):
    pairs, _, objs = files
    before = pairs.read_bytes().splitlines(keepends=True)
    target = objs[1]
    data = client.get(f"/api/pairs/{target['id']}").get_json()
    gold = [list(map(list, b)) for b in target["gold"][1:]]  # drop the first bead
    response = put_gold(client, target["id"], gold, data["etag"])
    assert response.status_code == 200, response.get_json()
    saved = response.get_json()
    assert saved["etag"] != data["etag"] and saved["source"] == "gold"
    after = pairs.read_bytes().splitlines(keepends=True)
    assert len(after) == len(before)
    assert [a == b for a, b in zip(after, before)] == [k != 1 for k in range(len(before))]
    new, old = json.loads(after[1]), json.loads(before[1])
    assert new["gold"] == sorted(gold) and {k: v for k, v in new.items() if k != "gold"} == {
        k: v for k, v in old.items() if k != "gold"
    }
    assert list(new) == list(old)  # field order kept
    records = list(read_pairs(str(pairs)))
    assert [(list(b.complex), list(b.simple)) for b in records[1].gold] == [tuple(b) for b in sorted(gold)]


def test_first_gold_for_a_pair_from_alignments(client, files):
    pairs, _, objs = files
    data = client.get(f"/api/pairs/{objs[5]['id']}").get_json()
    gold = [[b["complex"], b["simple"]] for b in data["beads"]]
    assert put_gold(client, objs[5]["id"], gold, data["etag"]).status_code == 200
    assert json.loads(pairs.read_bytes().splitlines()[5])["gold"] == sorted(objs[5]["gold"])
    assert client.get("/api/pairs").get_json()["pairs"][5]["gold"] is True


def test_stale_save_from_second_tab_is_refused(client, files):
    pairs, _, objs = files
    pair_id = objs[0]["id"]
    tab_a = client.get(f"/api/pairs/{pair_id}").get_json()
    tab_b = client.get(f"/api/pairs/{pair_id}").get_json()
    gold_a = objs[0]["gold"][:-1]
    assert put_gold(client, pair_id, gold_a, tab_a["etag"]).status_code == 200
    saved = pairs.read_bytes()
    stale = put_gold(client, pair_id, objs[0]["gold"][1:], tab_b["etag"])
    assert stale.status_code == 409
    body = stale.get_json()
    assert "another tab" in body["error"] and "not saved" in body["error"]
    assert [[b["complex"], b["simple"]] for b in body["current"]["beads"]] == sorted(gold_a)
    assert pairs.read_bytes() == saved
    # after seeing the conflict, the second tab may overwrite knowingly with the current version
    assert put_gold(client, pair_id, objs[0]["gold"][1:], body["current"]["etag"]).status_code == 200
    assert json.loads(pairs.read_bytes().splitlines()[0])["gold"] == sorted(objs[0]["gold"][1:])


@pytest.mark.parametrize(
    "gold, message",
    [
        ([[[0], [10_000]]], "out of range"),
        ([[[0], []]], "no simple sentence"),
        ([[[0, 0], [1]]], "repeats"),
        ("all", "must be a list"),
    ],
)
def test_bad_gold_is_refused_and_file_untouched(client, files, gold, message):
    pairs, _, objs = files
    before = pairs.read_bytes()
    etag = client.get(f"/api/pairs/{objs[0]['id']}").get_json()["etag"]
    response = put_gold(client, objs[0]["id"], gold, etag)
    assert response.status_code == 400 and message in response.get_json()["error"]
    assert pairs.read_bytes() == before


def test_request_guards(client, files):
    pairs, _, objs = files
    before = pairs.read_bytes()
    url = f"/api/pairs/{objs[0]['id']}/gold"
    assert client.put(url, json={"gold": []}).status_code == 428
    assert (
        client.put(
            url, data="gold=[]", content_type="application/x-www-form-urlencoded", headers={"If-Match": '"x"'}
        ).status_code
        == 415
    )
    assert client.get("/api/pairs", headers={"Host": "attacker.example:80"}).status_code == 403
    assert client.get("/", base_url="http://127.0.0.1:8765").status_code == 200
    assert pairs.read_bytes() == before


def test_external_edit_counts_as_a_conflict(files):
    pairs, alignments, objs = files
    store = PairStore(str(pairs), str(alignments))
    _, etag = store.view(objs[2]["id"])
    lines = pairs.read_bytes().splitlines(keepends=True)
    obj = json.loads(lines[2])
    obj["gold"] = obj["gold"][:1]
    lines[2] = (json.dumps(obj, ensure_ascii=False) + "\n").encode("utf-8")
    pairs.write_bytes(b"".join(lines))
    with pytest.raises(Conflict):
        store.save(objs[2]["id"], objs[2]["gold"], etag)


def test_failed_write_leaves_file_and_no_temporary(files, monkeypatch):
    pairs, alignments, objs = files
    os.chmod(pairs, 0o644)
    before = pairs.read_bytes()
    store = PairStore(str(pairs), str(alignments))
    _, etag = store.view(objs[0]["id"])

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonl.os, "replace", broken_replace)
    with pytest.raises(OutputError, match="no space left on device"):  # the disk full: one line, not OSError
        store.save(objs[0]["id"], objs[0]["gold"][1:], etag)
    monkeypatch.undo()
    assert pairs.read_bytes() == before
    assert sorted(p.name for p in pairs.parent.iterdir()) == ["alignments.jsonl", "pairs.jsonl"]
    store.save(objs[0]["id"], objs[0]["gold"][1:], etag)
    assert os.stat(pairs).st_mode & 0o777 == 0o644


def test_bad_pairs_file_fails_at_start(tmp_path, files):
    pairs, _, _ = files
    bad = tmp_path / "bad.jsonl"
    shutil.copy(pairs, bad)
    with open(bad, "a", encoding="utf-8") as handle:
        handle.write('{"id": "x", "lang": "de", "complex": {"paragraphs": [["A."]]}}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:7: missing side 'simple'"):
        create_app(str(bad))


def test_cli_review_bad_input_is_one_line_error(tmp_path, files, capsys):
    import socket

    from spacy_simalign.__main__ import main

    pairs, alignments, _ = files
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"\n', encoding="utf-8")
    assert main(["review", str(bad), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {bad}:1: invalid JSON") and "\n" not in err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert main(["review", str(pairs), str(alignments), "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_saved_gold_is_what_evaluate_scores_against(client, files, tmp_path):
    from spacy_simalign.evaluation.files import evaluate_files

    pairs, _, objs = files
    predicted = tmp_path / "predicted.jsonl"
    write_jsonl(
        predicted,
        [
            {"id": o["id"], "alignments": [{"complex": c, "simple": s, "score": 1.0} for c, s in o["gold"]]}
            for o in objs
        ],
    )
    for obj in objs[4:]:  # the two pairs without gold get the aligner's beads as gold
        data = client.get(f"/api/pairs/{obj['id']}").get_json()
        put_gold(client, obj["id"], [[b["complex"], b["simple"]] for b in data["beads"]], data["etag"])
    assert evaluate_files(str(pairs), str(predicted))["link"]["f"] == pytest.approx(1.0)
    etag = client.get(f"/api/pairs/{objs[0]['id']}").get_json()["etag"]
    assert put_gold(client, objs[0]["id"], objs[0]["gold"][1:], etag).status_code == 200
    scores = evaluate_files(str(pairs), str(predicted))["link"]
    assert scores["r"] == pytest.approx(1.0) and scores["p"] < 1.0
    links = [{(i, j) for c, s in o["gold"] for i in c for j in s} for o in objs]
    kept = {(i, j) for c, s in objs[0]["gold"][1:] for i in c for j in s}
    lost = len(links[0] - kept)
    assert lost > 0
    total = sum(len(x) for x in links)
    assert scores["p"] == pytest.approx((total - lost) / total, abs=1e-4)


def test_gold_saved_for_an_aligned_pair_leaves_its_alignment_current(tmp_path, deplain_pairs, capsys):
    """Saving gold writes a `gold` field into the pair file, which changes the pair's digest but not
    its sentences: evaluate still scores the alignment made before (here the gold is the aligned
    beads: a perfect score), and export still exports it."""
    from spacy_simalign.__main__ import main
    from spacy_simalign.evaluation.files import evaluate_files

    pairs, aligned = tmp_path / "pairs.jsonl", tmp_path / "aligned.jsonl"
    obj = {key: deplain_pairs[0][key] for key in ("id", "lang", "complex", "simple")}
    write_jsonl(pairs, [obj])
    assert main(["align", str(pairs), str(aligned), "--method", "tfidf"]) == 0
    client = token_client(create_app(str(pairs), str(aligned)))
    data = client.get(f"/api/pairs/{obj['id']}").get_json()
    beads = [[b["complex"], b["simple"]] for b in data["beads"]]
    assert beads and put_gold(client, obj["id"], beads, data["etag"]).status_code == 200
    assert json.loads(pairs.read_text(encoding="utf-8"))["gold"] == beads
    assert evaluate_files(str(pairs), str(aligned))["link"]["f"] == pytest.approx(1.0)
    capsys.readouterr()
    argv = ["export", str(tmp_path / "out"), "--pairs", str(pairs), "--alignments", str(aligned), "--formats", "jsonl"]
    assert main(argv) == 0


def segmented(text):
    from spacy_simalign.segmentation.sides import side_from_text

    return side_from_text(text, "de").sentences


def test_raw_text_side_reviewed_with_the_aligners_sentences(tmp_path, deplain_pairs):
    obj = json.loads(json.dumps(deplain_pairs[6]))
    paragraphs = obj["simple"]["paragraphs"]
    sentences = [s for p in paragraphs for s in p]
    obj["simple"] = {"text": "\n\n".join(" ".join(p) for p in paragraphs)}
    gold = obj.pop("gold")
    pairs, alignments = tmp_path / "pairs.jsonl", tmp_path / "alignments.jsonl"
    write_jsonl(pairs, [obj])
    write_jsonl(
        alignments,
        [
            {
                "id": obj["id"],
                "simple_sentences": sentences,
                "alignments": [{"complex": c, "simple": s, "score": 0.7} for c, s in gold],
            }
        ],
    )
    # without an alignment file the raw side is split by our segmenter (the same sentences here)
    alone = token_client(create_app(str(pairs))).get(f"/api/pairs/{obj['id']}").get_json()
    assert alone["simple"]["sentences"] == segmented(obj["simple"]["text"]) and alone["raw_sides"] == ["simple"]
    client = token_client(create_app(str(pairs), str(alignments)))
    data = client.get(f"/api/pairs/{obj['id']}").get_json()
    assert data["simple"]["sentences"] == sentences and data["raw_sides"] == ["simple"]
    assert data["simple"]["paragraphs"] == Side.from_paragraphs(paragraphs).paragraphs
    assert put_gold(client, obj["id"], gold[:-1], data["etag"]).status_code == 200
    saved = next(read_pairs(str(pairs)))
    assert [[list(b.complex), list(b.simple)] for b in saved.gold] == sorted(gold[:-1])
    assert saved.raw["simple"] == obj["simple"]


SAVER = r"""
import json, os, sys, time
import spacy_simalign.review.store as store

pairs, go, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
normalise = store.normalise_gold


def slow_normalise(*args):  # widen the read-modify-write window, as a slow disk or a busy machine would
    time.sleep(0.02)
    return normalise(*args)


store.normalise_gold = slow_normalise
pair_store = store.PairStore(pairs)
open(go + "." + ids[0], "w").close()
while not os.path.exists(go):
    time.sleep(0.005)
for pair_id in ids:
    view, etag = pair_store.view(pair_id)
    gold = [[list(b.complex), list(b.simple)] for b in view.beads][1:]
    pair_store.save(pair_id, gold, etag)
    print("saved", pair_id, flush=True)
"""


def test_two_review_processes_saving_different_pairs_lose_no_save(tmp_path, deplain_pairs):
    """Two servers on one file (here two PairStores in two processes) save different pairs at the
    same time: every save answered "saved" is in the file afterwards."""
    import subprocess
    import sys
    import time

    objs = [o for o in deplain_pairs if len(o["gold"]) >= 2][:16]
    pairs = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, objs)
    go = tmp_path / "go"
    halves = [[o["id"] for o in objs[0::2]], [o["id"] for o in objs[1::2]]]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SAVER, str(pairs), str(go), *ids],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for ids in halves
    ]
    while not all((tmp_path / f"go.{ids[0]}").exists() for ids in halves):
        assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    go.touch()
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert sum(out.count("saved") for out, _ in outputs) == len(objs)
    saved = {r.id: [[list(b.complex), list(b.simple)] for b in r.gold] for r in read_pairs(str(pairs))}
    lost = [o["id"] for o in objs if saved[o["id"]] != sorted(o["gold"][1:])]
    assert lost == [], f"{len(lost)} of {len(objs)} saves were overwritten"


def test_a_file_changed_without_the_lock_while_saving_is_a_conflict(files, monkeypatch):
    """A program that takes no lock rewrote the file between the save's reading and its replace:
    the save is refused and that program's content kept."""
    from spacy_simalign.review import store as store_module

    pairs, alignments, objs = files
    pair_store = PairStore(str(pairs), str(alignments))
    _, etag = pair_store.view(objs[0]["id"])
    normalise = store_module.normalise_gold
    other = pairs.read_bytes().replace(b'"gold"', b'"gold" ', 1)

    def external_write(*args):
        pairs.write_bytes(other)
        return normalise(*args)

    monkeypatch.setattr(store_module, "normalise_gold", external_write)
    with pytest.raises(Conflict, match="changed by another program"):
        pair_store.save(objs[0]["id"], objs[0]["gold"][1:], etag)
    assert pairs.read_bytes() == other
    assert sorted(p.name for p in pairs.parent.iterdir()) == ["alignments.jsonl", "pairs.jsonl"]


def test_a_symlinked_pairs_file_is_written_through_to_its_target(tmp_path, files):
    pairs, alignments, objs = files
    real = tmp_path / "data" / "real.jsonl"
    real.parent.mkdir()
    pairs.rename(real)
    pairs.symlink_to(real)
    pair_store = PairStore(str(pairs), str(alignments))
    _, etag = pair_store.view(objs[0]["id"])
    pair_store.save(objs[0]["id"], objs[0]["gold"][1:], etag)
    assert pairs.is_symlink() and os.readlink(pairs) == str(real)
    assert json.loads(real.read_bytes().splitlines()[0])["gold"] == sorted(objs[0]["gold"][1:])
    assert sorted(p.name for p in real.parent.iterdir()) == ["real.jsonl"]


def test_a_save_on_a_full_disk_answers_507_with_a_message(client, files, monkeypatch):
    """A save on a full disk answers 507 with a JSON message the page shows, not an HTML 500 page
    the reviewer sees only as "HTTP 500"; the file stays as it was."""
    pairs, _, objs = files
    before = pairs.read_bytes()
    etag = client.get(f"/api/pairs/{objs[0]['id']}").get_json()["etag"]

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(jsonl.os, "fsync", full)
    response = put_gold(client, objs[0]["id"], objs[0]["gold"][1:], etag)
    assert response.status_code == 507 and response.is_json
    assert response.get_json()["error"].startswith("not saved: the disk is full")
    assert pairs.read_bytes() == before
    assert sorted(p.name for p in pairs.parent.iterdir()) == ["alignments.jsonl", "pairs.jsonl"]


def test_stale_temporary_copies_of_a_killed_save_are_removed_at_start(files):
    """SIGKILL during a save leaves a hidden full copy (.tmp-XXXXXXXXpairs.jsonl) that nothing else
    removes. The next start removes those no live save holds locked; one being written (locked) stays."""
    import fcntl

    pairs, alignments, _ = files
    stale, busy = pairs.parent / ".tmp-abcd1234pairs.jsonl", pairs.parent / ".tmp-efgh5678pairs.jsonl"
    other = pairs.parent / ".tmp-abcd1234other.jsonl"  # a copy of another file: not ours to remove
    for path in (stale, busy, other):
        path.write_bytes(pairs.read_bytes())
        os.utime(path, (0, 0))
    with open(busy, "rb") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        PairStore(str(pairs), str(alignments))
        assert not stale.exists() and busy.exists() and other.exists()


def test_any_id_can_be_opened_and_saved_through_the_query(tmp_path, deplain_pairs):
    """Every id opens and saves, `.` and `..` (dot segments, removed by the browser even as %2E) and
    `/leading` (redirected, then 404, in a path) too: the page names the pair in the query string."""
    obj = deplain_pairs[0]
    ids = [".", "..", "/leading", "a/../b", "x?y#z&token=1"]
    pairs = tmp_path / "pairs.jsonl"
    write_jsonl(pairs, [dict(obj, id=i) for i in ids])
    client = token_client(create_app(str(pairs)))
    from urllib.parse import quote

    for pair_id in ids:
        got = client.get(f"/api/pair?id={quote(pair_id, safe='')}")
        assert got.status_code == 200 and got.get_json()["id"] == pair_id, pair_id
        saved = client.put(
            f"/api/pair/gold?id={quote(pair_id, safe='')}",
            json={"gold": obj["gold"][1:]},
            headers={"If-Match": f'"{got.get_json()["etag"]}"'},
        )
        assert saved.status_code == 200, (pair_id, saved.get_json())
    assert [o.get("gold") for o in map(json.loads, pairs.read_text().splitlines())] == [
        sorted(obj["gold"][1:], key=lambda b: (b[0][0], b[1][0]))
    ] * len(ids)
    script = (Path(__file__).parent.parent / "spacy_simalign" / "templates" / "review.js").read_text()
    assert '"/api/pair" + (what || "") + "?id=" + encodeURIComponent(id)' in script


def test_the_access_log_does_not_show_the_token(files, caplog):
    """werkzeug's access log shows no token: a line `GET /?token=... HTTP/1.1` would hand the run's
    secret to whoever reads the log."""
    import logging
    import urllib.request

    from spacy_simalign.review.app import ReviewServer

    pairs, alignments, _ = files
    caplog.set_level(logging.INFO, logger="werkzeug")
    server = ReviewServer(str(pairs), str(alignments), port=0).start()
    try:
        with urllib.request.urlopen(server.url, timeout=30) as response:
            assert response.status == 200
    finally:
        server.stop()
    assert "GET /?token=[redacted] HTTP/1.1" in caplog.text and server.token not in caplog.text


def test_the_page_lists_the_pairs_in_ranks_order_and_a_save_keeps_the_files(tmp_path, files):
    """review --order with `rank --output`'s file: the ranked pairs first, in its order, the others
    after in file order; saving a pair still changes only its own line of the pairs file."""
    from spacy_simalign.__main__ import main

    pairs, alignments, objs = files
    ranked = tmp_path / "ranked.tsv"
    three = pairs.with_name("three.jsonl")
    three.write_bytes(b"".join(pairs.read_bytes().splitlines(keepends=True)[3:6]))
    assert main(["rank", str(three), "--output", str(ranked)]) == 0
    ranked_ids = [line.split("\t")[0] for line in ranked.read_text(encoding="utf-8").splitlines()]
    assert sorted(ranked_ids) == sorted(o["id"] for o in objs[3:6])
    client = token_client(create_app(str(pairs), str(alignments), order_path=str(ranked)))
    listing = client.get("/api/pairs").get_json()["pairs"]
    assert [p["id"] for p in listing] == ranked_ids + [o["id"] for o in objs[:3]]
    before = pairs.read_bytes().splitlines(keepends=True)
    first = client.get(f"/api/pairs/{ranked_ids[0]}").get_json()
    gold = [[b["complex"], b["simple"]] for b in first["beads"][:1]]
    assert put_gold(client, ranked_ids[0], gold, first["etag"]).status_code == 200
    after = pairs.read_bytes().splitlines(keepends=True)
    changed = [k for k, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(after) == len(before) and changed == [[o["id"] for o in objs].index(ranked_ids[0])]


@pytest.mark.parametrize(
    "lines, message",
    [
        (["deplain-web-1\t0.5", "nosuch\t0.4"], ":2: id 'nosuch' is not a pair of "),
        (["deplain-web-1\t0.5", "deplain-web-1\t0.4"], ":2: id 'deplain-web-1' is listed twice"),
    ],
)
def test_a_bad_order_file_is_one_line_and_serves_nothing(tmp_path, files, capsys, lines, message):
    from spacy_simalign.__main__ import main

    pairs, alignments, objs = files
    ranked = tmp_path / "ranked.tsv"
    ranked.write_text("\n".join(line.replace("deplain-web-1", objs[0]["id"]) for line in lines) + "\n")
    message = message.replace("deplain-web-1", objs[0]["id"])
    assert main(["review", str(pairs), str(alignments), "--order", str(ranked), "--port", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {ranked}") and message in err and "\n" not in err
