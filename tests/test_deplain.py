"""The DEplain plan CSV reader against the converted pairs.jsonl, and its errors on bad CSV."""

import csv
import io

import pytest

from spacy_simalign.core.errors import InputError
from spacy_simalign.formats.deplain import read_plan, split_joined
from spacy_simalign.formats.pair_jsonl import parse_pair


@pytest.fixture(scope="module")
def converted(shared_data):
    plans = sorted(shared_data("deplain-web-dev/plans").glob("plan_doc_*.csv"))
    assert len(plans) == 82
    return {d["id"]: d for d in (read_plan(str(p)) for p in plans)}


def flat(side):
    return [s for para in side["paragraphs"] for s in para]


def test_all_plans_reproduce_pairs_jsonl(converted, deplain_pairs):
    """Same documents, same paragraph structure, same gold beads. The sentence texts match
    except where a `|`-joined n:m cell had to be split back: the reference split those with
    DEplain's own sentence files (which sometimes keep "Du gehst? Gut." as one sentence),
    so we allow 1% of the sentences to differ there."""
    reference = {d["id"]: d for d in deplain_pairs}
    assert set(converted) == set(reference)
    differing = total = 0
    for doc_id, ours in converted.items():
        ref = reference[doc_id]
        for side in ("complex", "simple"):
            assert [len(p) for p in ours[side]["paragraphs"]] == [len(p) for p in ref[side]["paragraphs"]], doc_id
            pairs = list(zip(flat(ours[side]), flat(ref[side])))
            total += len(pairs)
            differing += sum(a != b for a, b in pairs)
        assert sorted(ours["gold"]) == sorted(ref["gold"]), doc_id
        assert ours["corpus"] == ref["corpus"] and ours["license"] == ref["license"]
    assert total > 3000
    assert differing / total < 0.01


def test_converted_pairs_are_valid_pair_records(converted):
    for number, doc in enumerate(converted.values(), start=1):
        record = parse_pair(doc, "converted", number)
        assert record.gold


def test_titles_come_first_in_their_paragraph(converted, shared_data):
    """Plan 86 starts with a title (sentence -1) that is deleted in the simple version."""
    doc = converted["deplain-web-86"]
    with open(shared_data("deplain-web-dev/plans/plan_doc_86.csv"), encoding="utf-8") as handle:
        title = next(r["original"] for r in csv.DictReader(handle) if r["original_id"].endswith("--1"))
    assert doc["complex"]["paragraphs"][0][0] == title
    assert all(0 not in bead[0] for bead in doc["gold"])


def test_split_joined_prefers_sentence_ends():
    text = "Beschlossen haben es die Herzöge Wilhelm IV. und Ludwig X. Zu der Zeit war das Essen knapp."
    assert split_joined(text, 2) == [
        "Beschlossen haben es die Herzöge Wilhelm IV. und Ludwig X.",
        "Zu der Zeit war das Essen knapp.",
    ]
    assert split_joined("Ein Satz. Noch einer.", 2, ["Ein Satz.", None]) == ["Ein Satz.", "Noch einer."]
    assert split_joined("Eins", 2) is None


HEADER = "original,simplification,original_id,simplification_id,pair_id,corpus,license,alignment\n"


def write(tmp_path, text):
    path = tmp_path / "plan_doc_1.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_small_plan_with_split_deletion_and_addition(tmp_path):
    rows = io.StringIO()
    out = csv.writer(rows)
    out.writerow(["Titel", "", "1-1-0--1", "1-0-x-x", "1", "c", "l", "deletion"])
    out.writerow(
        [
            "Der Hund bellt laut und lange.",
            "Der Hund bellt. Er ist laut.",
            "1-1-0-0",
            "1-0-0-0|1-0-0-1",
            "1",
            "c",
            "l",
            "aligned (1:2)",
        ]
    )
    out.writerow(["", "Neu.", "1-1-x-x", "1-0-1-0", "1", "c", "l", "addition"])
    doc = read_plan(write(tmp_path, HEADER + rows.getvalue()))
    assert doc["id"] == "deplain-web-1"
    assert doc["complex"]["paragraphs"] == [["Titel", "Der Hund bellt laut und lange."]]
    assert doc["simple"]["paragraphs"] == [["Der Hund bellt.", "Er ist laut."], ["Neu."]]
    assert doc["gold"] == [[[1], [0, 1]]]


@pytest.mark.parametrize(
    "body, line, words",
    [
        ("a,b,1-1-0-0,1-0-zz,1,c,l,identical\n", 2, "bad sentence id"),
        ("a,b,1-1-0-0,1-1-0-0,1,c,l,identical\n", 2, "level"),
        ("a,b,1-1-0-0,2-0-0-0,1,c,l,identical\n", 2, "belongs to pair"),
        ("a,b,1-1-0-0,1-0-0-0,1,c,l\n", 2, "fields"),
        ("a,,1-1-0-0,1-0-0-0,1,c,l,identical\n", 2, "is empty"),
        (
            "a,b,1-1-0-0,1-0-0-0,1,c,l,identical\na,b c,1-1-0-1,1-0-0-1|1-0-0-2|1-0-0-3,1,c,l,aligned\n",
            3,
            "cannot split",
        ),
    ],
)
def test_malformed_rows_raise_located_errors(tmp_path, body, line, words):
    path = write(tmp_path, HEADER + body)
    with pytest.raises(InputError) as err:
        read_plan(path)
    assert err.value.path == path and err.value.line == line
    assert words in str(err.value)


def test_missing_column_and_empty_file(tmp_path):
    path = write(tmp_path, "original,simplification\nx,y\n")
    with pytest.raises(InputError, match="missing column"):
        read_plan(path)
    with pytest.raises(InputError, match="empty file"):
        read_plan(write(tmp_path, ""))
    with pytest.raises(InputError, match="no rows"):
        read_plan(write(tmp_path, HEADER))
    with pytest.raises(InputError, match="cannot read"):
        read_plan(str(tmp_path / "missing.csv"))


def test_byte_order_mark_and_long_fields_through_the_command(tmp_path, capsys):
    """A plan saved with a byte-order mark (as spreadsheet programs do) is read,
    a 200 KB field is within the bound, and a field beyond it is an error at its own line."""
    from spacy_simalign.__main__ import main
    from spacy_simalign.formats.csvfile import MAX_FIELD_CHARS

    row = "a,b,1-1-0-0,1-0-0-0,1,c,l,identical\n"
    path = tmp_path / "plan_doc_1.csv"
    path.write_bytes(("\ufeff" + HEADER + row).encode("utf-8"))
    assert main(["convert-deplain", str(path), str(tmp_path / "out.jsonl")]) == 0
    assert read_plan(str(path))["complex"]["paragraphs"] == [["a"]]
    long = "Wort " * 40_000  # 200 KB, beyond Python's default limit of 128 KiB
    path.write_text(HEADER + f"{long},b,1-1-0-0,1-0-0-0,1,c,l,identical\n", encoding="utf-8")
    assert read_plan(str(path))["complex"]["paragraphs"] == [[long.strip()]]
    path.write_text(HEADER + row + "x" * (MAX_FIELD_CHARS + 1) + ",b,1-1-0-1,1-0-0-1,1,c,l,identical\n")
    capsys.readouterr()
    assert main(["convert-deplain", str(path), str(tmp_path / "big.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3: malformed CSV (field larger than field limit" in err and err.count("\n") == 1
    assert not (tmp_path / "big.jsonl").exists()
