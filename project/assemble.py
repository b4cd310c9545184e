"""Per-language pipelines for packaging: the trained sentence aligner's weights behind each
language's tokenizer and segmenter (spacy.blank(lang) + simalign_segmenter +
simalign_sentence_aligner), each saved with its meta as OUTPUT/<lang>/.

    python project/assemble.py MODEL OUTPUT --name simalign_web --version 0.1.0 [--langs de,nl,fr,en] \
        [--trained-on TEXT --license TEXT --source TEXT | --card CARD.json] [--adapted-on GOLD] \
        [--gold GOLD --gold-license TEXT] [--model-license TEXT] [--package PACKAGES --build sdist,wheel]

`spacy package OUTPUT/<lang> packages --name NAME --version VERSION` then builds <lang>_NAME (`--package`
runs it for each language); its requirements name spacy-simalign (found through the factories' entry
points), and a transformer pipeline's spacy-transformers and torch. A transformer pipeline (configs/
transformer.cfg) is packaged whole, for its own language only (its transformer learnt that language),
and its meta names the base model's licence (`--model-license`, required) beside the gold's. The meta says what
the weights were trained on and under which licence; the defaults are the shipped weights' (DEplain-web
dev): weights adapted on other data name that data and its licence (`--trained-on`, `--license`,
`--source`), since its terms bind the weights (`--card`, a JSON file of them: configs/cards/wikimanual.json, CC BY-NC-SA 4.0).
`--adapted-on GOLD` (the `adapt` workflow): the shipped weights fine-tuned on GOLD, which the meta
names beside DEplain-web as a source whose terms bind the weights too."""

import argparse
import json
import subprocess
import sys
from pathlib import Path

import spacy

from spacy_simalign.core.errors import InputError

TRAINED_ON = "German DEplain-web gold (the same weights in every language; features are language-independent)"
LICENSE = "MIT (code); weights trained on CC BY 4.0 / CC BY-SA 3.0 data"
SOURCES = (
    "DEplain-web dev (Stodden et al., 2023): Alumniportal Deutschland documents under CC BY 4.0 "
    "and bible_verified under CC BY-SA 3.0; see assets/deplain-web-dev/README.md"
)
DEPLAIN = "deplain-web-dev/pairs.jsonl"  # the default gold, which SOURCES and LICENSE describe


def transformer_pipeline(model: str, name: str, version: str, metrics, trained_on, license, sources):
    """The trained transformer pipeline as it is (segmenter, transformer and the aligner listening to it),
    its meta naming the base model, the licences and torch, which spacy-transformers runs on."""
    import torch

    nlp = spacy.load(model)
    base = Path(str(nlp.config.interpolate()["components"]["transformer"]["model"]["name"])).name
    nlp.meta.update(
        {
            "name": name,
            "version": version,
            "description": (
                f"Sentence alignment of complex/simple document pairs ({nlp.lang}): the spacy-simalign neural "
                f"CRF aligner trained together with the transformer {base} on {trained_on}."
            ),
            "author": "spacy-simalign",
            "license": license,
            "sources": list(sources),
            "url": "",
            "requirements": [f"torch>={'.'.join(torch.__version__.split('+')[0].split('.')[:2])}"],
        }
    )
    if metrics:
        nlp.meta["performance"] = metrics
    return nlp


def assemble(
    model: str,
    lang: str,
    name: str,
    version: str,
    metrics: dict = None,
    trained_on: str = TRAINED_ON,
    license: str = LICENSE,
    sources=(SOURCES,),
) -> spacy.Language:
    """A blank `lang` pipeline with the trained aligner of `model` (weights copied); its meta names
    the training data (`trained_on`, `sources`) and the licence."""
    trained = spacy.load(model)
    source = trained.get_pipe("sentence_aligner")
    nlp = spacy.blank(lang)
    components = trained.config.interpolate()["components"]
    seg_cfg = {k: v for k, v in components["segmenter"].items() if k != "factory"}
    nlp.add_pipe("simalign_segmenter", name="segmenter", config=seg_cfg)
    aligner_cfg = {k: v for k, v in components["sentence_aligner"].items() if k != "factory"}
    aligner = nlp.add_pipe("simalign_sentence_aligner", name="sentence_aligner", config=aligner_cfg)
    aligner.from_bytes(source.to_bytes())
    nlp.meta.update(
        {
            "name": name,
            "version": version,
            "description": (
                f"Sentence alignment of complex/simple document pairs ({lang}): rule-based {lang} "
                f"segmentation and the spacy-simalign neural CRF aligner trained on {trained_on}."
            ),
            "author": "spacy-simalign",
            "license": license,
            "sources": list(sources),
            "url": "",
        }
    )
    if metrics:
        nlp.meta["performance"] = metrics
    return nlp


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", help="trained pipeline folder (spacy train output)")
    ap.add_argument("output", help="folder for one pipeline per language (created with its parents)")
    ap.add_argument("--name", default="simalign_web")
    ap.add_argument("--version", default="0.1.0")
    ap.add_argument("--langs", default="de,nl,fr,en")
    ap.add_argument("--metrics", default=None, help="metrics JSON (project/evaluate.py) to record in the meta")
    ap.add_argument("--trained-on", default=TRAINED_ON, help="what the weights were trained on (the description)")
    ap.add_argument("--license", default=LICENSE, help="the meta's licence: the terms of the code and of the weights")
    ap.add_argument(
        "--source",
        action="append",
        default=None,
        help="a data source of the weights, as the meta lists it (repeatable)",
    )
    ap.add_argument(
        "--card",
        default="",
        help="JSON file of trained_on, license and sources (a list) for the meta, in place of those options",
    )
    ap.add_argument(
        "--adapted-on",
        default=None,
        metavar="GOLD",
        help="the gold the shipped weights were adapted on: named in the description, the sources and the licence",
    )
    ap.add_argument(
        "--gold",
        default="",
        help="the gold the weights were trained on: named in the meta unless it is DEplain-web dev (the default's)",
    )
    ap.add_argument("--gold-license", default="", help="the gold's licence, as the meta names it")
    ap.add_argument("--model-license", default="", help="a transformer pipeline's base model's licence (required)")
    ap.add_argument(
        "--package", default="", metavar="PACKAGES", help="run spacy package on each pipeline into this folder"
    )
    ap.add_argument("--build", default="sdist,wheel", help="spacy package --build (with --package)")
    args = ap.parse_args(argv)
    try:
        if args.card:
            if not Path(args.card).is_file():
                raise InputError("no such card file", args.card)
            card = json.loads(Path(args.card).read_text(encoding="utf-8"))
            args.trained_on = card.get("trained_on", args.trained_on)
            args.license = card.get("license", args.license)
            args.source = card.get("sources", args.source)
        gold = args.gold.replace("\\", "/")
        if gold and not gold.endswith(DEPLAIN) and (Path(args.model).parent / "crf" / "config.json").is_file():
            # the adapt command's weights folder beside the pipeline: the shipped weights adapted on the gold
            args.adapted_on, gold = args.adapted_on or args.gold, ""
        if gold and not gold.endswith(DEPLAIN) and not args.card:
            terms = args.gold_license or f"the terms of {args.gold}"
            args.trained_on = f"{args.gold} ({terms})" if args.trained_on == TRAINED_ON else args.trained_on
            args.source = (args.source or []) + [f"{args.gold}: the gold the weights were trained on ({terms})"]
            if args.license == LICENSE:
                args.license = f"MIT (code); weights trained on {args.gold} ({terms}), whose terms bind them"
        if args.adapted_on:
            args.trained_on = (
                f"{args.trained_on}, adapted on {args.adapted_on}" if args.trained_on == TRAINED_ON else args.trained_on
            )
            args.source = (args.source or [SOURCES]) + [f"{args.adapted_on}: the gold the weights were adapted on"]
            if args.license == LICENSE:
                args.license = f"{LICENSE}, adapted on {args.adapted_on}, whose terms bind the weights too"
        if not Path(args.model).is_dir():
            raise InputError("no such pipeline folder", args.model)
        metrics = None
        if args.metrics and Path(args.metrics).exists():
            metrics = json.loads(Path(args.metrics).read_text(encoding="utf-8"))["scores"]
        sources = args.source or [SOURCES]
        trained = spacy.util.load_config(Path(args.model) / "config.cfg")
        if "transformer" in trained["nlp"]["pipeline"]:
            if args.trained_on == TRAINED_ON:
                args.trained_on = "German DEplain-web gold"
            if not args.model_license:
                raise InputError(
                    "a transformer pipeline's meta names its base model's licence: pass --model-license "
                    "(in the project --vars.transformer_license)",
                    args.model,
                )
            license = f"{args.license}; transformer weights: {args.model_license} (the base model's licence)"
            nlp = transformer_pipeline(args.model, args.name, args.version, metrics, args.trained_on, license, sources)
            others = [lang.strip() for lang in args.langs.split(",") if lang.strip() != nlp.lang]
            if others:
                print(
                    f"{nlp.lang}_{args.name}: a transformer pipeline is packaged for {nlp.lang} only, not {','.join(others)}"
                )
            pipelines = {nlp.lang: nlp}
        else:
            pipelines = {
                lang.strip(): assemble(
                    args.model, lang.strip(), args.name, args.version, metrics, args.trained_on, args.license, sources
                )
                for lang in args.langs.split(",")
            }
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for lang, nlp in pipelines.items():
        target = Path(args.output) / lang
        target.parent.mkdir(parents=True, exist_ok=True)
        nlp.to_disk(target)
        print(f"{lang}_{args.name} {args.version}: {target}")
        if args.package:
            command = [sys.executable, "-m", "spacy", "package", str(target), args.package]
            command += ["--name", args.name, "--version", args.version, "--build", args.build, "--force"]
            if subprocess.run(command).returncode:
                print(f"error: spacy package failed for {target}", file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
