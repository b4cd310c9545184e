"""The transformer route (configs/transformer.cfg): `spacy train` fine-tunes a Hugging Face model
folder through the sentence aligner's TransformerListener, and the trained pipeline aligns with
`align --model`. A tiny random BERT (2 layers, width 32, its own WordPiece vocabulary) is written
here, so nothing is downloaded; what a frozen encoder cannot do is asserted: the transformer's
weights change in training."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("spacy_transformers")
torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from spacy_simalign.__main__ import main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "transformer.cfg"
DEV = ROOT / "assets" / "deplain-web-dev" / "pairs.jsonl"
WORDS = "der die das und ist ein eine nicht mit für auf es sich den dem zu in von sie er wir".split()


def tiny_bert(folder: Path) -> Path:
    """A 2-layer BERT of width 32 with random weights and a WordPiece vocabulary of characters
    and a few German words, saved as a Hugging Face model folder (model, config, tokenizer)."""
    folder.mkdir(parents=True)
    pieces = [chr(c) for c in range(33, 127)] + list("äöüßÄÖÜ") + WORDS
    suffixes = ["##" + chr(c) for c in range(97, 123)] + ["##" + c for c in "äöüß"]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + pieces + suffixes
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # a window of 64 word pieces: some DEplain sentences are longer, and are cut to it
    tokenizer = transformers.BertTokenizerFast(str(folder / "vocab.txt"), do_lower_case=True, model_max_length=64)
    tokenizer.save_pretrained(str(folder))
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=64,
    )
    torch.manual_seed(0)
    transformers.BertModel(config).save_pretrained(str(folder))
    return folder


def train(tmp: Path, train_path: Path, model, output: Path) -> None:
    """spacy train configs/transformer.cfg for two steps, in this process."""
    from spacy.cli.train import train as spacy_train

    overrides = {
        "paths.train": str(train_path),
        "paths.dev": str(tmp / "dev.jsonl"),
        "paths.transformer_model": str(model),
        "training.max_steps": 2,
        "training.eval_frequency": 2,
    }
    spacy_train(CONFIG, output, overrides=overrides)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """(the folder, the HF model folder, the trained pipeline) of one two-step training on three documents."""
    tmp = tmp_path_factory.mktemp("transformer")
    lines = DEV.read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp / "train.jsonl").write_text("".join(lines[:3]), encoding="utf-8")
    (tmp / "dev.jsonl").write_text("".join(lines[3:5]), encoding="utf-8")
    model = tiny_bert(tmp / "bert")
    with pytest.warns(UserWarning, match="longer than the transformer's window and was cut to it"):
        train(tmp, tmp / "train.jsonl", model, tmp / "trained")
    return tmp, model, tmp / "trained" / "model-last"


def test_training_changes_the_transformer_through_the_aligners_listener(trained):
    import spacy
    from spacy_transformers.layers.listener import TransformerListener

    _, model, pipeline = trained
    nlp = spacy.load(pipeline)
    assert nlp.pipe_names == ["segmenter", "transformer", "sentence_aligner"]
    transformer, aligner = nlp.get_pipe("transformer"), nlp.get_pipe("sentence_aligner")
    listeners = [node for node in aligner.model.walk() if isinstance(node, TransformerListener)]
    assert len(listeners) == 1 and transformer.listeners == listeners
    before = dict(transformers.AutoModel.from_pretrained(str(model)).named_parameters())
    after = dict(transformer.model.transformer.named_parameters())
    changed = [name for name, value in before.items() if not torch.equal(value, after[name])]
    # every weight the sentence vectors depend on moved (the pooler, which they do not read, need not)
    assert set(before) - set(changed) <= {"pooler.dense.weight", "pooler.dense.bias"}
    assert "encoder.layer.1.output.dense.weight" in changed


def test_the_transformer_trains_with_its_layers_recomputed(trained):
    """The config's after_init turns on gradient checkpointing in the Hugging Face model, which
    bounds the memory of long documents in training; loaded for aligning, it is off."""
    import spacy
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config

    tmp, model, pipeline = trained
    paths = {"paths.train": str(tmp / "train.jsonl"), "paths.dev": str(tmp / "dev.jsonl")}
    config = load_config(CONFIG, overrides={**paths, "paths.transformer_model": str(model)}, interpolate=False)
    assert init_nlp(config).get_pipe("transformer").model.transformer.is_gradient_checkpointing
    assert not spacy.load(pipeline).get_pipe("transformer").model.transformer.is_gradient_checkpointing


def test_a_transformer_without_layer_recomputation_trains_with_a_warning(trained, monkeypatch):
    import spacy

    from spacy_simalign.pipeline.transformer_memory import recompute_layers

    nlp = spacy.load(trained[2])
    monkeypatch.setattr(transformers.BertModel, "supports_gradient_checkpointing", False)
    with pytest.warns(UserWarning, match="cannot recompute its layers in training: memory grows"):
        assert recompute_layers(nlp) == 0
    assert not nlp.get_pipe("transformer").model.transformer.is_gradient_checkpointing


def test_the_trained_pipeline_aligns_with_align_model(trained, tmp_path):
    folder, _, pipeline = trained
    out = tmp_path / "aligned.jsonl"
    assert main(["align", str(folder / "dev.jsonl"), str(out), "--model", str(pipeline)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    given = [json.loads(line)["id"] for line in (folder / "dev.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["id"] for line in lines] == given
    assert all(line["alignments"] for line in lines)


def test_the_sentence_vectors_are_the_transformers(trained):
    """The CRF's cosine column at inference is that of the pooled transformer vectors."""
    import spacy

    from spacy_simalign.aligners.crf.pair_scores import COS, with_pair_scores
    from spacy_simalign.pipeline.doc_pair import make_pair, side_of

    _, _, pipeline = trained
    nlp = spacy.load(pipeline)
    doc = make_pair(nlp, [["Der Hund schläft.", "Die Katze nicht."]], [["Die Katze schläft nicht."]])
    doc = nlp.get_pipe("transformer")(doc)
    aligner = nlp.get_pipe("sentence_aligner")
    (vc, vs) = aligner.vectors.predict([doc])[0]
    assert vc.shape == (2, 32) and vs.shape == (1, 32) and np.abs(vc).sum() > 0
    features = aligner.aligner.featurize(side_of(doc, "complex"), side_of(doc, "simple"))
    scored = with_pair_scores(features, (vc, vs))
    unit = [v / np.linalg.norm(v, axis=1, keepdims=True) for v in (vc, vs)]
    x = scored.c2s
    rows, ks = np.nonzero(x.cand >= 0)
    expected = np.einsum("ij,ij->i", unit[0][rows], unit[1][x.cand[rows, ks]])
    assert np.allclose(x.feats[rows, ks, COS], expected, atol=1e-6)


def refused_training(tmp: Path, train_path: Path, model, output: Path, capsys) -> str:
    with pytest.raises(SystemExit) as done:
        train(tmp, train_path, model, output)
    assert done.value.code == 1  # spaCy's CLI: its one message (wrapped to the terminal), then status 1
    printed = capsys.readouterr()
    assert "Traceback" not in printed.out + printed.err
    said = printed.out[printed.out.index("✘") :].split("\n\n")[0]
    assert printed.out.count("✘") == 1
    assert not (output / "model-last").exists() and not (output / "model-best").exists()
    return " ".join(said.split())


def test_a_missing_or_empty_model_folder_is_refused_before_training(trained, tmp_path, capsys):
    folder, _, _ = trained
    missing = refused_training(folder, folder / "train.jsonl", tmp_path / "nope", tmp_path / "out1", capsys)
    assert "nope: transformer model folder not found" in missing
    (tmp_path / "empty").mkdir()
    empty = refused_training(folder, folder / "train.jsonl", tmp_path / "empty", tmp_path / "out2", capsys)
    assert "empty: not a Hugging Face model folder: it holds no config.json" in empty


def test_gold_without_links_is_refused(trained, tmp_path, capsys):
    folder, model, _ = trained
    rows = [json.loads(line) for line in (folder / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    no_links = tmp_path / "no-links.jsonl"
    no_links.write_text("".join(json.dumps(dict(row, gold=[])) + "\n" for row in rows), encoding="utf-8")
    said = refused_training(folder, no_links, model, tmp_path / "out", capsys)
    assert "the training gold holds no links" in said


def test_align_model_without_spacy_transformers_names_the_extra(trained, tmp_path, capsys, monkeypatch):
    from spacy_simalign.core import caches

    folder, _, pipeline = trained
    caches.drop("pipeline")  # the pipeline loaded by an earlier test, with spacy-transformers
    monkeypatch.setitem(sys.modules, "spacy_transformers", None)
    out = tmp_path / "aligned.jsonl"
    assert main(["align", str(folder / "dev.jsonl"), str(out), "--model", str(pipeline)]) == 2
    assert capsys.readouterr().err == (
        "error: a pipeline with a transformer component needs the 'transformers' extra (spacy_transformers "
        'is not installed): pip install "spacy-simalign[transformers]"\n'
    )
    assert not out.exists()
