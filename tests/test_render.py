"""render(): the HTML view of aligned pairs, from records, alignment JSONL, Doc pairs and the CLI."""

import json
import sys
import types
from html.parser import HTMLParser

import pytest
import spacy
from conftest import DEPLAIN_PAIRS, write_jsonl

from spacy_simalign.__main__ import main
from spacy_simalign.core.structures import Bead, Side
from spacy_simalign.formats.pair_jsonl import parse_pair
from spacy_simalign.pipeline import doc_pair as pair_module
from spacy_simalign.review.render import render, score_hue
from spacy_simalign.segmentation.sides import side_from_sentences


class Sentences(HTMLParser):
    """Collects every .sa-sent element: its attributes, classes and text (without number and badge)."""

    def __init__(self):
        super().__init__()
        self.items, self._open, self._depth, self._skip_at = [], None, 0, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if self._open is None:
            if "sa-sent" in classes:
                self._open, self._depth = {"attrs": attrs, "classes": classes, "text": []}, 0
            return
        self._depth += 1
        if self._skip_at is None and ("sa-num" in classes or "sa-badge" in classes):
            self._skip_at = self._depth

    def handle_endtag(self, tag):
        if self._open is None:
            return
        if self._depth == 0:
            self._open["text"] = "".join(self._open["text"])
            self.items.append(self._open)
            self._open = None
            return
        if self._skip_at == self._depth:
            self._skip_at = None
        self._depth -= 1

    def handle_data(self, data):
        if self._open is not None and self._skip_at is None:
            self._open["text"].append(data)


def sentences_of(html):
    parser = Sentences()
    parser.feed(html)
    return parser.items


def flat(side):
    return [s for para in side["paragraphs"] for s in para]


def alignment_from_gold(obj, score_of=lambda k: 1.0):
    """An alignment JSONL record made from a pair's gold: the stand-in for an aligner's output."""
    return {
        "id": obj["id"],
        "alignments": [{"complex": c, "simple": s, "score": score_of(k)} for k, (c, s) in enumerate(obj["gold"])],
    }


def test_every_sentence_shown_once_and_marked_from_gold(deplain_pairs):
    for obj in deplain_pairs[:12]:
        items = sentences_of(render(obj, jupyter=False))
        for name, kind in (("complex", "sa-deleted"), ("simple", "sa-added")):
            sents = flat(obj[name])
            shown = [i for i in items if i["attrs"]["data-side"] == name]
            assert [int(i["attrs"]["data-index"]) for i in shown] == list(range(len(sents)))
            assert [i["text"] for i in shown] == sents
            in_gold = {i for bead in obj["gold"] for i in bead[0 if name == "complex" else 1]}
            aligned = {int(i["attrs"]["data-index"]) for i in shown if "sa-aligned" in i["classes"]}
            unaligned = {int(i["attrs"]["data-index"]) for i in shown if kind in i["classes"]}
            assert aligned == in_gold
            assert unaligned == set(range(len(sents))) - in_gold


def test_beads_are_numbered_and_linked_both_sides(deplain_pairs):
    obj = next(o for o in deplain_pairs if any(len(c) > 1 or len(s) > 1 for c, s in o["gold"]))
    items = sentences_of(render(obj, jupyter=False))
    for k, (c, s) in enumerate(obj["gold"]):
        members = {
            (i["attrs"]["data-side"], int(i["attrs"]["data-index"]))
            for i in items
            if str(k + 1) in i["attrs"].get("data-beads", "").split()
        }
        assert members == {("complex", i) for i in c} | {("simple", i) for i in s}


def test_colour_follows_score(deplain_pairs):
    obj = deplain_pairs[0]
    scores = [round(0.05 + 0.9 * k / max(len(obj["gold"]) - 1, 1), 4) for k in range(len(obj["gold"]))]
    html = render(obj, alignments=alignment_from_gold(obj, lambda k: scores[k]), jupyter=False)
    hue_by_bead = {}
    for item in sentences_of(html):
        if "sa-aligned" in item["classes"]:
            bead = int(item["attrs"]["data-beads"].split()[0]) - 1
            hue_by_bead[bead] = int(item["attrs"]["style"].split(":")[1])
            assert float(item["attrs"]["data-score"]) == pytest.approx(scores[bead], abs=1e-4)
    assert [hue_by_bead[k] for k in sorted(hue_by_bead)] == sorted(hue_by_bead.values())
    assert hue_by_bead[0] < hue_by_bead[max(hue_by_bead)]
    assert score_hue(0) < score_hue(0.5) < score_hue(1)


def test_alignments_replace_gold_and_are_matched_by_id(deplain_pairs):
    first, second = deplain_pairs[0], deplain_pairs[1]
    only_first = {"id": first["id"], "alignments": [{"complex": [0], "simple": [0], "score": 0.5}]}
    html = render([first, second], alignments=[only_first], jupyter=False)
    items = sentences_of(html)
    assert html.count('class="sa-pair"') == 2
    first_aligned = [
        i for i in items[: len(flat(first["complex"])) + len(flat(first["simple"]))] if "sa-aligned" in i["classes"]
    ]
    assert [(i["attrs"]["data-side"], i["attrs"]["data-index"]) for i in first_aligned] == [
        ("complex", "0"),
        ("simple", "0"),
    ]
    assert "from alignments" in html and "from gold" in html


def test_text_is_escaped(deplain_pairs):
    obj = json.loads(json.dumps(deplain_pairs[0]))
    obj["complex"]["paragraphs"][0][0] = "<script>alert('x')</script> & <b>fett</b>"
    html = render(obj, jupyter=False)
    assert "<script>alert" not in html and "<b>fett</b>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;fett&lt;/b&gt;" in html
    assert sentences_of(html)[0]["text"] == obj["complex"]["paragraphs"][0][0]


def test_page_is_a_whole_document_and_fragment_is_not(deplain_pairs):
    obj = deplain_pairs[0]
    page = render(obj, page=True, jupyter=False)
    fragment = render(obj, jupyter=False)
    assert page.startswith("<!DOCTYPE html>") and f"<title>spacy-simalign: {obj['id']}</title>" in page
    assert page.rstrip().endswith("</html>")
    assert not fragment.startswith("<!DOCTYPE") and "<style>" in fragment and "<script>" in fragment


def test_jupyter_displays_and_returns_none(deplain_pairs, monkeypatch):
    shown = []
    display = types.ModuleType("IPython.display")
    display.HTML = lambda markup: ("HTML", markup)
    display.display = shown.append
    ipython = types.ModuleType("IPython")
    ipython.display = display
    monkeypatch.setitem(sys.modules, "IPython", ipython)
    monkeypatch.setitem(sys.modules, "IPython.display", display)
    assert render(deplain_pairs[0], jupyter=True) is None
    assert shown and shown[0][0] == "HTML" and deplain_pairs[0]["id"] in shown[0][1]


def test_raw_text_side_takes_sentences_from_alignment(deplain_pairs):
    obj = json.loads(json.dumps(deplain_pairs[2]))
    paragraphs = obj["simple"]["paragraphs"]
    obj["simple"] = {"text": "\n\n".join("  ".join(p) for p in paragraphs)}
    alignment = alignment_from_gold(obj)
    alignment["simple_sentences"] = [s for p in paragraphs for s in p]
    side = side_from_sentences(obj["simple"]["text"], alignment["simple_sentences"], "de")
    assert side.paragraphs == Side.from_paragraphs(paragraphs).paragraphs
    html = render(obj, alignments=alignment, jupyter=False)
    shown = [i["text"] for i in sentences_of(html) if i["attrs"]["data-side"] == "simple"]
    assert shown == flat({"paragraphs": paragraphs})
    # with no alignment, the raw side is shown as our segmenter splits it
    from spacy_simalign.segmentation.sides import side_from_text

    alone = [i["text"] for i in sentences_of(render(obj, jupyter=False)) if i["attrs"]["data-side"] == "simple"]
    assert alone == side_from_text(obj["simple"]["text"], "de").sentences


def test_doc_pair_renders_like_its_record(deplain_pairs):
    obj = deplain_pairs[3]
    nlp = spacy.blank("de")
    doc = pair_module.make_pair(
        nlp, obj["complex"]["paragraphs"], obj["simple"]["paragraphs"], "de", id=obj["id"], gold=obj["gold"]
    )
    from_doc = sentences_of(render(doc, jupyter=False))
    from_record = sentences_of(render(obj, jupyter=False))
    assert [
        (i["attrs"]["data-side"], i["attrs"]["data-index"], i["classes"], i["attrs"].get("data-beads"))
        for i in from_doc
    ] == [
        (i["attrs"]["data-side"], i["attrs"]["data-index"], i["classes"], i["attrs"].get("data-beads"))
        for i in from_record
    ]
    side_pair = (pair_module.side_of(doc, "complex"), pair_module.side_of(doc, "simple"), doc._.beads)
    assert len(sentences_of(render(side_pair, jupyter=False))) == len(from_doc)


def test_out_of_range_beads_are_refused(deplain_pairs):
    obj = deplain_pairs[0]
    record = parse_pair(obj)
    n = len(flat(obj["complex"]))
    with pytest.raises(ValueError, match="out of range"):
        render(record, alignments=[Bead((n,), (0,), 0.5)], jupyter=False)


def test_cli_writes_static_page(deplain_pairs, tmp_path, capsys):
    pairs = DEPLAIN_PAIRS
    alignments = tmp_path / "alignments.jsonl"
    write_jsonl(alignments, [alignment_from_gold(o, lambda k: 0.9) for o in deplain_pairs])
    out = tmp_path / "view.html"
    assert main(["render", str(pairs), str(alignments), str(out), "--limit", "3"]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.count('class="sa-pair"') == 3
    assert all(o["id"] in html for o in deplain_pairs[:3]) and deplain_pairs[3]["id"] not in html
    out2 = tmp_path / "gold.html"
    assert main(["render", str(pairs), str(out2), "--ids", deplain_pairs[5]["id"]]) == 0
    assert out2.read_text(encoding="utf-8").count('class="sa-pair"') == 1


def test_cli_bad_alignment_is_one_line_error_and_no_output(deplain_pairs, tmp_path, capsys):
    pairs = DEPLAIN_PAIRS
    records = [alignment_from_gold(o) for o in deplain_pairs]
    records[4]["alignments"][0]["simple"] = [10_000]
    alignments = tmp_path / "alignments.jsonl"
    write_jsonl(alignments, records)
    out = tmp_path / "view.html"
    capsys.readouterr()
    assert main(["render", str(pairs), str(alignments), str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {alignments}:5: ") and "out of range" in err and "\n" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == [alignments]
    records[4] = {"id": "no-such-pair", "alignments": []}
    write_jsonl(alignments, records)
    assert main(["render", str(pairs), str(alignments), str(out)]) == 2
    assert "no-such-pair" in capsys.readouterr().err and not out.exists()


def test_cli_lone_surrogate_is_one_line_error_and_no_output(deplain_pairs, tmp_path, capsys):
    """A JSON escape can put a lone surrogate in a text, which the UTF-8 page cannot hold: render
    refuses it as align does, in the pair file and in the alignment file."""
    obj = json.loads(json.dumps(deplain_pairs[0]))
    obj["simple"]["paragraphs"][0][0] += "\ud800"
    bad_pairs, good_pairs = tmp_path / "bad.jsonl", tmp_path / "pairs.jsonl"
    bad_pairs.write_text(json.dumps(obj) + "\n", encoding="ascii")  # the JSON escape \ud800
    write_jsonl(good_pairs, deplain_pairs[:1])
    alignments = tmp_path / "alignments.jsonl"
    write_jsonl(alignments, [alignment_from_gold(deplain_pairs[0])])
    out = tmp_path / "view.html"
    capsys.readouterr()
    for paths, where in (
        ([bad_pairs], bad_pairs),
        ([bad_pairs, alignments], bad_pairs),
    ):
        assert main(["render", *map(str, paths), str(out)]) == 2
        assert capsys.readouterr().err == f"error: {where}:1: text is not valid Unicode (lone surrogate \\ud800)\n"
        assert not out.exists()
    line = dict(alignment_from_gold(deplain_pairs[0]), note="\udfff")
    alignments.write_text(json.dumps(line) + "\n", encoding="ascii")
    assert main(["render", str(good_pairs), str(alignments), str(out)]) == 2
    assert capsys.readouterr().err == f"error: {alignments}:1: text is not valid Unicode (lone surrogate \\udfff)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alignments.jsonl", "bad.jsonl", "pairs.jsonl"]


def test_an_alignment_file_for_some_pairs_renders_them_all(deplain_pairs, tmp_path, capsys):
    """Pairs without an alignment show their gold, or nothing; a raw-text pair
    without an alignment is split by our segmenter."""
    from spacy_simalign.segmentation.sides import side_from_text

    with_gold, no_gold, raw = (json.loads(json.dumps(o)) for o in deplain_pairs[:3])
    del no_gold["gold"]
    del raw["gold"]
    raw["simple"] = {"text": "\n\n".join(" ".join(p) for p in raw["simple"]["paragraphs"])}
    pairs, alignments = tmp_path / "pairs.jsonl", tmp_path / "some.jsonl"
    pairs.write_text(
        "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in (with_gold, no_gold, raw)), encoding="utf-8"
    )
    alignments.write_text(
        json.dumps({"id": no_gold["id"], "alignments": [{"complex": [0], "simple": [0], "score": 0.5}]}) + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "view.html"
    assert main(["render", str(pairs), str(alignments), str(out)]) == 0, capsys.readouterr().err
    html = out.read_text(encoding="utf-8")
    stats = [part.split("</span>")[0] for part in html.split('class="sa-stats">')[1:]]
    assert len(stats) == 3
    assert stats[0].startswith(f"{len(with_gold['gold'])} beads") and stats[0].endswith("from gold")
    assert stats[1].startswith("1 beads") and stats[1].endswith("from alignments")
    n_raw = len(side_from_text(raw["simple"]["text"], "de"))
    assert stats[2].startswith("0 beads") and f"/ {n_raw} simple sentences" in stats[2] and stats[2].endswith("none")


def test_review_with_an_alignment_file_for_some_pairs(deplain_pairs, tmp_path):
    from spacy_simalign.review.app import create_app

    objs = [json.loads(json.dumps(o)) for o in deplain_pairs[:3]]
    del objs[2]["gold"]
    pairs, alignments = tmp_path / "pairs.jsonl", tmp_path / "some.jsonl"
    pairs.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    alignments.write_text(
        json.dumps({"id": objs[1]["id"], "alignments": [{"complex": [0], "simple": [0], "score": 0.5}]}) + "\n",
        encoding="utf-8",
    )
    app = create_app(str(pairs), str(alignments))
    client = app.test_client()
    client.environ_base["HTTP_X_REVIEW_TOKEN"] = app.config["TOKEN"]
    listing = client.get("/api/pairs").get_json()["pairs"]
    assert [(p["gold"], p["alignment"]) for p in listing] == [(True, False), (True, True), (False, False)]
    sources = [client.get(f"/api/pairs/{o['id']}").get_json()["source"] for o in objs]
    assert sources == ["gold", "gold", "none"]
