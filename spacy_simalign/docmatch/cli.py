"""Command-line options shared by match-docs and calibrate-docs: a matcher config file
(default ./docmatch.cfg when it exists, else the built-in defaults) plus per-run overrides."""

import argparse
import os
from typing import Dict

from ..core.config_sections import read_config
from ..core.errors import InputError
from ..core.registries import doc_index_registry, short_names
from ..formats.document_fields import FIELDS
from .evidence import rerank_names
from .lexical_signals import LEXICAL_SIGNALS, LEXICAL_WEIGHT
from .strategies import strategy_names

DEFAULT_CONFIG_PATH = "docmatch.cfg"


def add_matcher_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        default=None,
        help=f"matcher config ([docmatch] section); default ./{DEFAULT_CONFIG_PATH} if present, else built-in defaults",
    )
    parser.add_argument("--strategy", choices=strategy_names(), default=None, help="pair-selection strategy")
    parser.add_argument(
        "--fields",
        nargs="+",
        choices=FIELDS,
        default=None,
        help="document fields to embed (default: title lead; missing lead = first paragraph)",
    )
    parser.add_argument(
        "--window-days",
        default=None,
        help="match only documents dated within N days (0 = same day); 'none' = no blocking",
    )
    parser.add_argument("--top-k", type=int, default=None, help="candidates per document from the index")
    parser.add_argument(
        "--index",
        choices=list(short_names(doc_index_registry)),
        default=None,
        help="nearest-neighbour index for large blocks",
    )
    parser.add_argument(
        "--lexical",
        choices=LEXICAL_SIGNALS,
        default=None,
        help="lexical signal mixed into the first stage, for every language pair (default: the "
        "pair's profile: tfidf within a language, none across languages)",
    )
    parser.add_argument("--lexical-weight", type=float, default=None, help="weight of the lexical signal, 0..1")
    parser.add_argument(
        "--rerank",
        choices=rerank_names(),
        default=None,
        help="second stage: re-score the best candidates by sentence evidence (default) or none",
    )
    parser.add_argument(
        "--rerank-weight",
        type=float,
        default=None,
        help="weight of the sentence evidence in the final score, 0..1, for every language pair",
    )
    parser.add_argument("--embedder", default=None, help="'use' (default) or a sentence-transformers model folder")
    parser.add_argument(
        "--allow-mixed-languages",
        action="store_true",
        help="accept a collection whose documents declare different languages",
    )


PROFILE_OPTIONS = ("lexical", "lexical_weight", "rerank_weight")  # per language pair: set in every profile


def _overrides(args) -> Dict:
    """Dotted config keys for the matcher-wide options given (the per-pair ones: profile_values)."""
    out: Dict = {}
    if args.strategy:
        out["docmatch.strategy"] = args.strategy
    if args.fields:
        out["docmatch.fields"] = list(args.fields)
    if args.window_days is not None:
        if str(args.window_days).lower() == "none":
            out["docmatch.window_days"] = -1
        else:
            try:
                out["docmatch.window_days"] = int(args.window_days)
            except ValueError:
                raise InputError(f"--window-days must be an integer or 'none', got '{args.window_days}'") from None
    for key in ("top_k", "index", "rerank"):
        if getattr(args, key) is not None:
            out[f"docmatch.{key}"] = getattr(args, key)
    if args.allow_mixed_languages:
        out["docmatch.allow_mixed_languages"] = True
    return out


def profile_values(args, profile) -> Dict:
    """The per-pair options given, for one profile: a lexical signal asked for by name gets
    the weight LEXICAL_WEIGHT where the profile had none (a weight it had, calibrated or not, stays)."""
    values = {key: getattr(args, key) for key in PROFILE_OPTIONS if getattr(args, key) is not None}
    if args.lexical not in (None, "none") and args.lexical_weight is None and not profile.lexical_weight:
        values["lexical_weight"] = LEXICAL_WEIGHT
    return values


def load_matcher(args):
    """(DocMatcher, Config, config path or None) from the options; the Config holds the options
    given, for calibrate-docs to write."""
    from .matcher import DocMatcher, Profile, default_config, is_v1

    path = args.config
    if path is None and os.path.exists(DEFAULT_CONFIG_PATH):
        path = DEFAULT_CONFIG_PATH
    config = read_config(path, "docmatch", "matcher") if path is not None else default_config()
    if args.embedder and args.embedder != "use":
        config["docmatch"]["embedder"] = {
            "@simalign_similarity": "spacy-simalign.SentenceTransformerSimilarity.v1",
            "model_path": args.embedder,
        }
    v1 = is_v1(config)
    for option, given in (("--rerank", args.rerank), ("--rerank-weight", args.rerank_weight)):
        if v1 and given is not None:
            raise InputError(f"{option} needs a spacy-simalign.DocMatcher.v2 config (v1 has no second stage)", path)
    overrides = _overrides(args)
    matcher = DocMatcher.from_config(config, overrides, path)
    for key, value in overrides.items():  # keep the config in step
        config["docmatch"][key.split(".", 1)[1]] = value
    for name, profile in matcher.profiles.items():
        values = profile_values(args, profile)
        if values:
            matcher.profiles[name] = Profile.from_config(name, {**profile.to_config(), **values})
    if any(getattr(args, key) is not None for key in PROFILE_OPTIONS):
        if v1:  # one profile for every pair, stored at the top
            config["docmatch"].update(
                {k: v for k, v in matcher.profiles["same"].to_config().items() if k in ("lexical", "lexical_weight")}
            )
        else:
            config["docmatch"]["profiles"] = {name: p.to_config() for name, p in matcher.profiles.items()}
    return matcher, config, path
