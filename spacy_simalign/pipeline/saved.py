"""A saved spaCy pipeline folder loaded for `align --model`, with one located error: spaCy reports
a damaged config.cfg or meta.json by a parser's traceback that names no file, and a setting of
config.cfg that no config can hold (NaN, a whole number beyond 64 bits) by an error that names
neither setting nor file, so those two files are read and the components' settings checked first
(core/setting_checks.py), and whatever else fails to load is reported naming the folder. The CRF weights inside
the folder name their own damaged file (aligners/crf/weights_files.py)."""

import json
import os
import re
from pathlib import Path
from typing import Any, List, Optional, Tuple

from ..core.config_sections import config_error
from ..core.errors import InputError, first_line


def config_reason(err: BaseException) -> Tuple[str, Optional[int]]:
    """What the config parser found wrong and on which line: confection wraps configparser's
    message (its last paragraph) in a paragraph of general advice."""
    text = str(getattr(err, "desc", None) or err).strip()
    last = text.split("\n\n")[-1].strip() or type(err).__name__
    reason = last.splitlines()[0].replace(": '<string>'", "").rstrip(".")
    found = re.search(r"line:?\s+(\d+)", last)
    return reason[:200], int(found.group(1)) if found else None


def check_pipeline_files(folder: Path) -> None:
    """config.cfg parses as a config whose components' settings their functions accept, and
    meta.json (when there) as a JSON object."""
    from thinc.api import Config

    from ..core.setting_checks import config_problems

    config = folder / "config.cfg"
    try:
        parsed = Config().from_str(config.read_text(encoding="utf-8"), interpolate=False)
    except UnicodeDecodeError as err:
        raise InputError(f"damaged pipeline file: not UTF-8 at byte offset {err.start}", str(config)) from None
    except OSError as err:
        raise InputError(f"cannot read the pipeline's config: {err.strerror}", str(config)) from None
    except Exception as err:  # noqa: BLE001 - configparser's and confection's errors alike
        reason, line = config_reason(err)
        raise InputError(f"damaged pipeline file: not a spaCy config ({reason})", str(config), line) from None
    components = parsed.get("components")
    if isinstance(components, dict) and holds_transformer(components):
        from ..core.extras import check_installed

        check_installed("transformers", "spacy_transformers", "a pipeline with a transformer component")
    found = config_problems(components, "components") if isinstance(components, dict) else []
    if found:
        raise InputError("; ".join(found), str(config))
    meta = folder / "meta.json"
    if meta.exists():
        try:
            value = json.loads(meta.read_bytes())
        except (OSError, ValueError, RecursionError) as err:
            raise InputError(f"damaged pipeline file: not JSON ({first_line(err)})", str(meta)) from None
        if not isinstance(value, dict):
            raise InputError("damaged pipeline file: not a JSON object", str(meta))


def holds_transformer(components: dict) -> bool:
    """Whether a config's components use spacy-transformers (its `transformer` factory or one of
    its registered functions, a listener among them)."""

    def uses(value) -> bool:
        if isinstance(value, dict):
            return any(uses(v) for v in value.values())
        return isinstance(value, str) and value.startswith("spacy-transformers.")

    return any(
        isinstance(block, dict) and (block.get("factory") == "transformer" or uses(block))
        for block in components.values()
    )


# what nlp.to_disk writes beside a folder per component (meta.json lists the components)
PIPELINE_ENTRIES = ("config.cfg", "meta.json", "tokenizer", "vocab")


def foreign_entries(folder: str) -> List[str]:
    """The names in `folder` that no saved spaCy pipeline holds (nlp.to_disk writes config.cfg,
    meta.json, tokenizer, vocab/ and one entry per component that meta.json lists): every name
    when config.cfg or meta.json is missing or meta.json is no JSON object. What a command that
    replaces a pipeline folder whole (`adapt --pipeline`) refuses to delete unasked."""
    names = sorted(os.listdir(folder))
    try:
        with open(os.path.join(folder, "meta.json"), "rb") as handle:
            meta = json.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return names
    if not isinstance(meta, dict) or not os.path.isfile(os.path.join(folder, "config.cfg")):
        return names
    lists = [meta.get(key) for key in ("pipeline", "components")]
    listed = [name for names_ in lists if isinstance(names_, list) for name in names_ if isinstance(name, str)]
    return [name for name in names if name not in PIPELINE_ENTRIES and name not in listed]


def load_saved_pipeline(folder: str) -> Any:
    """spacy.load of the pipeline `folder`; a damaged file is an InputError naming it (or the folder)."""
    import spacy

    check_pipeline_files(Path(folder))
    try:
        return spacy.load(folder)
    except InputError as err:
        if err.path is None:  # a setting of config.cfg that its function refused (core/setting_checks.py)
            raise InputError(err.reason, str(Path(folder) / "config.cfg")) from None
        raise
    except Exception as err:  # noqa: BLE001 - one of spaCy's own files (vocab, tokenizer) is damaged
        raise InputError(f"cannot load the spaCy pipeline: {config_error(err)}", folder) from None
