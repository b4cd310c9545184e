"""Per-language pipelines for packaging: the trained sentence aligner's weights behind each
language's tokenizer and segmenter (spacy.blank(lang) + simalign_segmenter +
simalign_sentence_aligner), each saved with its meta as OUTPUT/<lang>/.

    python project/assemble.py MODEL OUTPUT --name simalign_web --version 0.1.0 [--langs de,nl,fr,en] \
        [--trained-on TEXT --license TEXT --source TEXT] [--adapted-on GOLD]

`spacy package OUTPUT/<lang> packages --name NAME --version VERSION` then builds <lang>_NAME;
its requirements name spacy-simalign (found through the factories' entry points). The meta says what
the weights were trained on and under which licence; the defaults are the shipped weights' (DEplain-web
dev): weights adapted on other data name that data and its licence (`--trained-on`, `--license`,
`--source`), since its terms bind the weights (the `wikimanual` workflow: CC BY-NC-SA 4.0).
`--adapted-on GOLD` (the `adapt` workflow): the shipped weights fine-tuned on GOLD, which the meta
names beside DEplain-web as a source whose terms bind the weights too."""

import argparse
import json
import sys
from pathlib import Path

import spacy

TRAINED_ON = "German DEplain-web gold (the same weights in every language; features are language-independent)"
LICENSE = "MIT (code); weights trained on CC BY 4.0 / CC BY-SA 3.0 data"
SOURCES = (
    "DEplain-web dev (Stodden et al., 2023): Alumniportal Deutschland documents under CC BY 4.0 "
    "and bible_verified under CC BY-SA 3.0; see assets/deplain-web-dev/README.md"
)


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
        "--adapted-on",
        default=None,
        metavar="GOLD",
        help="the gold the shipped weights were adapted on: named in the description, the sources and the licence",
    )
    args = ap.parse_args(argv)
    if args.adapted_on:
        args.trained_on = (
            f"{args.trained_on}, adapted on {args.adapted_on}" if args.trained_on == TRAINED_ON else args.trained_on
        )
        args.source = (args.source or [SOURCES]) + [f"{args.adapted_on}: the gold the weights were adapted on"]
        if args.license == LICENSE:
            args.license = f"{LICENSE}, adapted on {args.adapted_on}, whose terms bind the weights too"
    metrics = None
    if args.metrics and Path(args.metrics).exists():
        metrics = json.loads(Path(args.metrics).read_text(encoding="utf-8"))["scores"]
    for lang in args.langs.split(","):
        sources = args.source or [SOURCES]
        nlp = assemble(
            args.model, lang.strip(), args.name, args.version, metrics, args.trained_on, args.license, sources
        )
        target = Path(args.output) / lang.strip()
        target.parent.mkdir(parents=True, exist_ok=True)
        nlp.to_disk(target)
        print(f"{lang}_{args.name} {args.version}: {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
