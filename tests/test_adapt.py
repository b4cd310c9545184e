"""`adapt` and `rank`: fine-tuning the CRF on a user's gold documents, refitting its
stages on them, the command's output folder and pipeline and its one-line errors, and the
documents ranked by how unsure the CRF is."""

import json
import shutil

import numpy as np
import pytest
import torch
from conftest import SMALL, write_jsonl

from spacy_simalign.__main__ import main
from spacy_simalign.aligners.crf.aligner import DEFAULT_WEIGHTS
from spacy_simalign.aligners.crf.choice import WIDE_RECORD
from spacy_simalign.aligners.crf.fine_tuning import AdaptSettings, adapted_aligner, held_out_check, schedule
from spacy_simalign.aligners.crf.train import featurize_all
from spacy_simalign.aligners.crf.unsure import sentence_entropy, unsureness


def nll(aligner, x) -> float:
    with torch.no_grad():
        return float(aligner.model.nll(x.s2c) + aligner.model.nll(x.c2s))


@pytest.fixture(scope="module")
def user_and_background(shipped, small_pairs):
    """The first SMALL pair as the user's document, the other two as background, featurized."""
    feats = featurize_all(shipped, small_pairs)
    plain = featurize_all(shipped, small_pairs, with_gold=False)
    return small_pairs[:1], feats[:1], plain[:1], feats[1:]


def test_each_epoch_shows_the_background_once_and_each_user_document_repeat_times():
    steps = schedule(n_user=2, n_background=3, repeat=4)
    assert sorted(steps) == [0, 1, 2] + [3] * 4 + [4] * 4


def test_fine_tuning_fits_the_user_documents_and_leaves_the_base_alone(shipped, user_and_background):
    pairs, feats, plain, background = user_and_background
    before = nll(shipped, feats[0])
    state = {k: v.clone() for k, v in shipped.model.state_dict().items()}
    steps = []
    settings = AdaptSettings(epochs=2, repeat=3, refit=False)
    adapted = adapted_aligner(
        DEFAULT_WEIGHTS, pairs, feats, plain, background, settings, shipped.encoder, tick=lambda: steps.append(1)
    )
    assert len(steps) == 2 * (len(background) + 3)  # the progress bar's steps
    assert nll(adapted, feats[0]) < before * 0.9
    assert all(torch.equal(v, shipped.model.state_dict()[k]) for k, v in state.items())
    assert adapted.config["combination_weights"] == shipped.config["combination_weights"]  # no refit asked


def test_refit_only_refits_the_combination_and_bead_scorer_on_the_user_documents(shipped, small_pairs):
    plain = featurize_all(shipped, small_pairs, with_gold=False)
    settings = AdaptSettings(epochs=0, refit=True)
    adapted = adapted_aligner(DEFAULT_WEIGHTS, small_pairs, [], plain, [], settings, shipped.encoder)
    assert all(torch.equal(v, shipped.model.state_dict()[k]) for k, v in adapted.model.state_dict().items())
    for stage in ("combination_weights", "bead_weights"):
        assert len(adapted.config[stage]) == len(shipped.config[stage])
        assert not np.allclose(adapted.config[stage], shipped.config[stage])
    # by default the stages are refitted after fine-tuning, on the adapted CRF's decodes
    feats = featurize_all(shipped, small_pairs)
    both = adapted_aligner(DEFAULT_WEIGHTS, small_pairs, feats, plain, [], AdaptSettings(epochs=1), shipped.encoder)
    assert not np.allclose(both.config["bead_weights"], adapted.config["bead_weights"])
    again = adapted_aligner(DEFAULT_WEIGHTS, small_pairs, [], plain, [], settings, shipped.encoder)
    assert adapted.config["bead_weights"] == again.config["bead_weights"]  # deterministic


def test_the_held_out_check_scores_each_gold_document_by_adapt_on_the_others(shipped, small_pairs):
    """Two websites' documents of sgc-dev would also do; the check must not let a document teach
    the adapted CRF that scores it: its figures are those of adapt on the other document alone."""
    from spacy_simalign.core.errors import InputError
    from spacy_simalign.evaluation.tally import Tally

    pairs, feats = small_pairs[:2], featurize_all(shipped, small_pairs[:2])
    plain = featurize_all(shipped, pairs, with_gold=False)
    settings = AdaptSettings(epochs=1, repeat=3)
    check = held_out_check(DEFAULT_WEIGHTS, pairs, feats, plain, feats[2:], settings, shipped.encoder)
    base, held_out, in_sample = Tally(), Tally(), Tally()
    both = adapted_aligner(DEFAULT_WEIGHTS, pairs, feats, plain, [], settings, shipped.encoder)
    documents = []
    for i, other in ((0, 1), (1, 0)):
        alone = adapted_aligner(
            DEFAULT_WEIGHTS,
            pairs[other : other + 1],
            feats[other : other + 1],
            plain[other : other + 1],
            [],
            settings,
            shipped.encoder,
        )
        base.add(pairs[i], shipped.align_input(plain[i]))
        held_out.add(pairs[i], alone.align_input(plain[i]))
        in_sample.add(pairs[i], both.align_input(plain[i]))
        own = [Tally(), Tally()]
        own[0].add(pairs[i], shipped.align_input(plain[i]))
        own[1].add(pairs[i], alone.align_input(plain[i]))
        documents.append((pairs[i].id, *(t.figures()["bead_text"]["f"] for t in own)))
    assert check.base["docs"] == check.adapted["docs"] == 2
    assert check.documents == documents  # each document's own figures, in the order given
    assert check.base["bead_text"] == base.figures()["bead_text"]
    assert check.adapted["bead_text"] == held_out.figures()["bead_text"]
    assert check.adapted["link"] != in_sample.figures()["link"]  # not the documents adapt learned from
    assert check.helps == (held_out.figures()["bead_text"]["f"] > base.figures()["bead_text"]["f"])
    with pytest.raises(InputError, match="at least 2, got 1"):
        held_out_check(DEFAULT_WEIGHTS, pairs[:1], feats[:1], plain[:1], [], settings, shipped.encoder)


def test_entropy_of_marginal_rows():
    rows = np.array([[1.0, 0.0, 0.0, 0.0], [0.25, 0.25, 0.25, 0.25], [0.5, 0.5, 0.0, 0.0]])
    assert np.allclose(sentence_entropy(rows), [0.0, np.log(4), np.log(2)])


def test_a_mismatched_pair_is_more_unsure_than_its_true_pairs(shipped, small_pairs):
    """The complex side of one document with the simple side of another: no simple sentence has a
    counterpart, and the null marginal says so."""
    true = [shipped.featurize(p.complex, p.simple) for p in small_pairs[:2]]
    wrong = shipped.featurize(small_pairs[0].complex, small_pairs[1].simple)
    scores = [unsureness(shipped, x, "null") for x in true]
    assert unsureness(shipped, wrong, "null") > max(scores) + 0.2


def small_rows(deplain_pairs):
    by_id = {r["id"]: r for r in deplain_pairs}
    return [by_id[i] for i in SMALL]


def test_rank_prints_the_most_unsure_first_and_writes_the_same_lines(tmp_path, deplain_pairs, capsys):
    rows = small_rows(deplain_pairs)
    wrong = dict(rows[0], id="mismatched", simple=rows[1]["simple"])
    del wrong["gold"]
    pairs = write_jsonl(tmp_path / "pairs.jsonl", rows[:2] + [wrong])
    out = tmp_path / "ranked.tsv"
    assert main(["rank", str(pairs), "--score", "null", "--output", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert out.read_text(encoding="utf-8").splitlines() == lines
    ids, scores = zip(*(line.split("\t") for line in lines))
    assert ids[0] == "mismatched" and sorted(ids) == sorted(["mismatched", SMALL[0], SMALL[1]])
    assert list(map(float, scores)) == sorted(map(float, scores), reverse=True)


def raw_simple_side_with_a_gold_index_past_its_sentences(row):
    """The simple side as raw text (its sentences joined): a gold index one past the sentences the
    segmenter finds is only known to be bad once the side is split."""
    paragraphs = row["simple"]["paragraphs"]
    row["simple"] = {"text": "\n\n".join(" ".join(p) for p in paragraphs)}
    row["gold"].append([[0], [sum(map(len, paragraphs)) + 5]])


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda row: row.pop("gold"), "no pair has gold (1 pairs)"),
        (lambda row: row["gold"].append([[999], [0]]), "gold"),
        (raw_simple_side_with_a_gold_index_past_its_sentences, "as the segmenter splits it"),
    ],
)
def test_bad_gold_is_one_line_and_writes_nothing(tmp_path, deplain_pairs, capsys, change, message):
    row = json.loads(json.dumps(small_rows(deplain_pairs)[0]))
    change(row)
    gold = write_jsonl(tmp_path / "gold.jsonl", [row])
    out = tmp_path / "adapted"
    assert main(["adapt", str(gold), str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {gold}") and message in err and "\n" not in err
    assert not out.exists() or not any(out.iterdir())


def test_bad_options_and_base_are_one_line(tmp_path, deplain_pairs, capsys):
    gold = write_jsonl(tmp_path / "gold.jsonl", small_rows(deplain_pairs)[:1])
    assert main(["adapt", str(gold), str(tmp_path / "a"), "--epochs", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "error: --epochs = -1: must be at least 0"
    assert main(["adapt", str(gold), str(tmp_path / "a"), "--base", str(tmp_path)]) == 2
    assert "not a CRF aligner folder" in capsys.readouterr().err
    base = tmp_path / "base"  # a copy: a check that failed must not replace the shipped weights
    shutil.copytree(DEFAULT_WEIGHTS, base)
    before = {p.relative_to(base): p.read_bytes() for p in base.rglob("*") if p.is_file()}
    assert main(["adapt", str(gold), str(base), "--base", str(base), "--background", str(tmp_path / "none")]) == 2
    assert "would overwrite the input" in capsys.readouterr().err
    assert {p.relative_to(base): p.read_bytes() for p in base.rglob("*") if p.is_file()} == before


def test_the_default_base_and_background_are_inputs():
    """Without --base and --background, adapt reads the shipped weights and DEplain-web dev: no output
    may replace them (the package guard refuses the shipped weights' folder first, core/output_paths)."""
    from spacy_simalign.__main__ import build_parser
    from spacy_simalign.commands.adapt import REPO_BACKGROUND, paths

    args = build_parser("adapt").parse_args(["adapt", "gold.jsonl", "out"])
    inputs = paths(args).inputs
    assert str(DEFAULT_WEIGHTS / "config.json") in inputs and str(DEFAULT_WEIGHTS / "model.npz") in inputs
    assert str(REPO_BACKGROUND) in inputs


def adapt_into_pipeline(tmp_path, deplain_pairs, capsys, *options):
    """adapt of one SMALL gold document (no training: --epochs 0 --no-refit) with --pipeline tmp_path/pipe."""
    rows = small_rows(deplain_pairs)
    gold, background = write_jsonl(tmp_path / "gold.jsonl", rows[:1]), write_jsonl(tmp_path / "bg.jsonl", rows[1:2])
    argv = ["adapt", str(gold), str(tmp_path / "out"), "--background", str(background), "--epochs", "0"]
    code = main([*argv, "--no-refit", "--no-progress", "--pipeline", str(tmp_path / "pipe"), *options])
    return code, capsys.readouterr().err.strip()


def test_adapt_pipeline_replaces_only_an_earlier_pipeline_unless_overwrite(tmp_path, deplain_pairs, capsys):
    """--pipeline DIR is replaced whole: a DIR holding anything but an earlier pipeline is refused before
    any work (nothing written, OUTPUT_DIR not made) unless --overwrite; an earlier pipeline is replaced."""
    pipe = tmp_path / "pipe"
    pipe.mkdir()
    (pipe / "notes.txt").write_text("mine", encoding="utf-8")
    code, err = adapt_into_pipeline(tmp_path, deplain_pairs, capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert err == (
        f"error: {pipe}: --pipeline folder holds files that are not an earlier pipeline (notes.txt): choose an "
        "empty or new folder, or give --overwrite to replace the folder with all it holds"
    )
    assert [p.name for p in pipe.iterdir()] == ["notes.txt"] and not (tmp_path / "out").exists()
    assert adapt_into_pipeline(tmp_path, deplain_pairs, capsys, "--overwrite")[0] == 0
    assert {p.name for p in pipe.iterdir()} == {"config.cfg", "meta.json", "sentence_aligner", "tokenizer", "vocab"}
    assert adapt_into_pipeline(tmp_path, deplain_pairs, capsys)[0] == 0  # an earlier pipeline: replaced unasked
    (pipe / "notes.txt").write_text("mine", encoding="utf-8")  # a file of the user's put into it
    code, err = adapt_into_pipeline(tmp_path, deplain_pairs, capsys)
    assert code == 2 and "(notes.txt)" in err and (pipe / "notes.txt").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("documents", [1, 2])
def test_adapt_without_check_says_it_did_not_check(tmp_path, deplain_pairs, capsys, documents):
    """Adapted weights can align the user's domain worse than the base: without --check, adapt ends on
    one note saying it did not check (with one document, that it cannot), after the weights are saved."""
    rows = small_rows(deplain_pairs)
    gold = write_jsonl(tmp_path / "gold.jsonl", rows[:documents])
    background = write_jsonl(tmp_path / "bg.jsonl", rows[documents : documents + 1])
    argv = ["adapt", str(gold), str(tmp_path / "out"), "--background", str(background), "--epochs", "0"]
    assert main([*argv, "--no-refit", "--no-progress"]) == 0
    last = capsys.readouterr().err.strip().splitlines()[-1]
    if documents == 1:
        assert last.startswith("note: adapted on 1 gold document, which cannot be checked (--check leaves one")
    else:
        assert last.startswith("note: not checked whether adapting helps on your documents: adapt --check")
    assert (tmp_path / "out" / "config.json").is_file()


def test_adapt_pipeline_through_a_link_replaces_the_target(tmp_path, deplain_pairs, capsys):
    target = tmp_path / "real"
    (tmp_path / "pipe").symlink_to(target)
    assert adapt_into_pipeline(tmp_path, deplain_pairs, capsys)[0] == 0
    assert (tmp_path / "pipe").is_symlink() and (target / "config.cfg").is_file()


@pytest.mark.parametrize(
    "pipeline, message",
    [
        ("{tmp}", "holds the input {tmp}/gold.jsonl"),
        ("{tmp}/out", "--pipeline and OUTPUT_DIR ({tmp}/out) must be two separate folders"),
        ("{tmp}/out/pipe", "--pipeline and OUTPUT_DIR ({tmp}/out) must be two separate folders"),
        ("{tmp}/base/wide", "is inside the input folder {tmp}/base"),
        ("{pkg}/..", "holds the installed spacy_simalign package ({pkg})"),
    ],
)
def test_adapt_pipeline_never_replaces_its_inputs_even_with_overwrite(tmp_path, capsys, pipeline, message):
    """Called as the command line calls it before any work, so that a check that failed deletes nothing."""
    from types import SimpleNamespace

    from spacy_simalign.commands.adapt import check_pipeline_folder
    from spacy_simalign.core.errors import InputError
    from spacy_simalign.core.output_paths import PACKAGE

    names = {"tmp": str(tmp_path), "pkg": PACKAGE}
    args = SimpleNamespace(
        gold=str(tmp_path / "gold.jsonl"),
        output=str(tmp_path / "out"),
        base=str(tmp_path / "base"),
        background=[str(tmp_path / "bg.jsonl")],
        pipeline=pipeline.format(**names),
        overwrite=True,
    )
    (tmp_path / "base" / "wide").mkdir(parents=True)
    with pytest.raises(InputError) as caught:
        check_pipeline_folder(args)
    assert message.format(**names) in str(caught.value) and "\n" not in str(caught.value)


def test_adapt_check_prints_base_and_held_out_adapted_figures(tmp_path, deplain_pairs, capsys):
    rows = small_rows(deplain_pairs)
    gold, background = write_jsonl(tmp_path / "gold.jsonl", rows[:2]), write_jsonl(tmp_path / "bg.jsonl", rows[2:])
    out = tmp_path / "adapted"
    args = ["adapt", str(gold), str(out), "--background", str(background), "--epochs", "1", "--no-progress"]
    assert main(args + ["--check"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "held out: each of the 2 gold documents aligned by the base and by adapt on the other 1"
    base, adapted = (float(lines[i].split()[-1]) for i in (2, 3))
    assert lines[2].startswith("base") and lines[3].startswith("adapted") and base != adapted
    assert lines[4].startswith("adapting " + ("helps" if adapted > base else "does not help"))
    assert lines[5].startswith("document") and [line.split()[0] for line in lines[6:8]] == [r["id"] for r in rows[:2]]
    per_document = [tuple(map(float, line.split()[1:])) for line in lines[6:8]]
    better, worse = sum(a > b for b, a in per_document), sum(a < b for b, a in per_document)
    assert lines[8] == f"adapted better on {better}, worse on {worse} of the 2 documents"
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.npz", "wide"]
    one = write_jsonl(tmp_path / "one.jsonl", rows[:1])
    assert main(["adapt", str(one), str(tmp_path / "none"), "--check"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: {one}: --check leaves one gold document out: it needs at least 2 with gold, got 1"
    assert not (tmp_path / "none").exists()


@pytest.mark.slow
def test_the_loop_rank_align_review_adapt_and_the_adapted_folder_and_pipeline(tmp_path, deplain_pairs, capsys):
    """A user's pairs without gold: rank them, align them, save the prediction of the most unsure
    one as its gold (what the review page does when the user accepts it), adapt on the file (the
    pair with gold only); align --model and spacy.load use the result, and the pipeline carries
    its weights (it loads with the weights folder gone)."""
    import shutil

    import spacy

    from spacy_simalign.review.store import PairStore

    rows = [dict(r) for r in small_rows(deplain_pairs)]
    for row in rows:
        del row["gold"]
    pairs = write_jsonl(tmp_path / "pairs.jsonl", rows)
    assert main(["rank", str(pairs), "--output", str(tmp_path / "ranked.tsv")]) == 0
    first = (tmp_path / "ranked.tsv").read_text(encoding="utf-8").split("\t")[0]
    predicted = tmp_path / "predicted.jsonl"
    assert main(["align", str(pairs), str(predicted)]) == 0
    store = PairStore(str(pairs), str(predicted))
    view, etag = store.view(first)
    store.save(first, [[list(b.complex), list(b.simple)] for b in view.beads], etag)
    background = write_jsonl(tmp_path / "background.jsonl", small_rows(deplain_pairs)[1:])
    out, pipe = tmp_path / "adapted", tmp_path / "pipeline"
    args = ["adapt", str(pairs), str(out), "--background", str(background), "--epochs", "1", "--pipeline", str(pipe)]
    assert main(args) == 0
    assert "1 gold documents (2 pairs without gold skipped)" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.npz", "wide"]  # the base's wide CRF kept
    again = ["adapt", str(pairs), str(out), "--background", str(background), "--epochs", "0"]
    assert main(again) == 0 and sorted(p.name for p in out.iterdir()) == ["config.json", "model.npz", "wide"]
    # a base of one CRF (no wide/, no record of one): the folder's earlier wide CRF must go
    single = tmp_path / "single"
    shutil.copytree(DEFAULT_WEIGHTS, single, ignore=shutil.ignore_patterns("wide"))
    config = json.loads((single / "config.json").read_text(encoding="utf-8"))
    del config[WIDE_RECORD]
    (single / "config.json").write_text(json.dumps(config), encoding="utf-8")
    assert main(again + ["--base", str(single)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["config.json", "model.npz"]
    assert main(args) == 0  # and the pipeline and folder of the first run again
    assert main(["align", str(pairs), str(tmp_path / "again.jsonl"), "--model", str(out)]) == 0
    shutil.move(str(out), str(tmp_path / "moved"))
    nlp = spacy.load(pipe)
    aligner = nlp.get_pipe("sentence_aligner").aligner
    assert nlp.pipe_names == ["segmenter", "sentence_aligner"] and aligner.ready and aligner.wide is not None
