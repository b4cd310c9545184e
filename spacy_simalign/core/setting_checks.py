"""The one check of every setting: a registered function (or settings class) declares what each
of its settings allows with `@ranges(top_k=AT_LEAST_1, analyzer=Choice(...), ...)`, and every
call of it (an `add_pipe`, `spacy.load`, `spacy train`, a `--config` file, a direct call) checks
its arguments before its body runs: the declared range or choices, the type the signature
annotates (a number given as a string is refused), a finite number for every float, and for a
`similarity` argument a similarity backend (one that embeds where EMBEDS is declared), and a
whole number that a spaCy config can hold (SPACY_WHOLE). Null
passes a range or choice (for the CRF's old form, null is the weights' value); a setting that
null does not stand for declares Required(rule).

The command line's own options are checked by the same function (check_settings with flags=True).
An error is one line naming the registered function, the setting, its value and what is allowed;
it is an InputError (the commands print it and exit 2) and a ConfigValidationError (spaCy's
command line prints it as a message)."""

import dataclasses
import functools
import inspect
import json
import math
import typing
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple


@dataclass(frozen=True)
class Range:
    """A closed interval (either end open when None); `None` values (the weights' own, for the CRF) pass."""

    low: Optional[float] = None
    high: Optional[float] = None

    def problem(self, value) -> Optional[str]:
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            return None  # the type check reports it
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            if self.high is None:
                return f"must be at least {self.low}"
            if self.low is None:
                return f"must be at most {self.high}"
            return f"must be between {self.low} and {self.high}"
        return None


@dataclass(frozen=True)
class Choice:
    """One of a few names (a string setting); None passes where the signature allows it."""

    options: Tuple[str, ...]

    def problem(self, value) -> Optional[str]:
        if value is None or value in self.options:
            return None
        return f"must be one of {', '.join(shown(option) for option in self.options)}"


class Embeds:
    """A similarity that embeds sentences (has `encode`): what a decoder of sentence vectors needs."""

    def problem(self, value) -> Optional[str]:
        if value is None or callable(getattr(value, "encode", None)):
            return None
        return (
            "cannot embed sentences: this aligner needs an embedding similarity "
            "(spacy-simalign.USESimilarity.v1, spacy-simalign.SentenceTransformerSimilarity.v1)"
        )


@dataclass(frozen=True)
class Required:
    """A setting that null does not stand for: null is refused (`why` says where null has a
    meaning instead); any other value is `rule`'s to check (None: its type alone)."""

    rule: Any = None
    why: str = ""

    def problem(self, value) -> Optional[str]:
        if value is None:
            return "needs a value" + (f" ({self.why})" if self.why else "")
        return None if self.rule is None else self.rule.problem(value)


AT_LEAST_0 = Range(0)
AT_LEAST_1 = Range(1)
AT_LEAST_2 = Range(2)
UNIT = Range(0, 1)  # probabilities, shares, relative distances
COSINE = Range(-1, 1)  # a similarity threshold (embedding cosines may be negative)
EMBEDS = Embeds()

# The whole numbers a spaCy config can hold: -2^63 to 2^64 - 1. The config parser (confection,
# Python's json) reads a number of any size, but spaCy checks each component's config with
# srsly.is_json_serializable, whose ujson writes a whole number as a C int64 or uint64: beyond
# them it fails (spaCy's E961), or, with a section after the number, leaves its OverflowError set
# and Python raises a SystemError that names nothing (what spacy.load of such a config.cfg
# does). 2^64 - 1 is a uint64: spaCy holds it, msgpack (to_bytes) too, and a count that large
# is clipped to the document like any other.
SPACY_WHOLE = (-(2**63), 2**64 - 1)


def number_problem(value) -> Optional[str]:
    """What no setting may hold, whatever its rule: a number that is not finite, or a whole
    number beyond SPACY_WHOLE (also inside a list)."""
    if isinstance(value, (list, tuple)):
        return next((f"its item {shown(v)} {p}" for v in value if (p := number_problem(v))), None)
    if isinstance(value, float) and not math.isfinite(value):
        return "must be a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and not SPACY_WHOLE[0] <= value <= SPACY_WHOLE[1]:
        return "is beyond the whole numbers a spaCy config holds (-2^63 to 2^64 - 1)"
    return None


def shown(value) -> str:
    """A value as a config file writes it (true, null, "text", 0.5); an object by its class."""
    if isinstance(value, (bool, str)) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return str(value)
    return type(value).__name__


def ranges(**rules):
    """Declare what a registered function's (or a settings dataclass's) settings allow, and check
    every call against it (a decorator; a class gets the check in its __post_init__)."""

    def declare(owner):
        if isinstance(owner, type):
            return _checked_class(owner, rules)
        signature = inspect.signature(owner)

        @functools.wraps(owner)
        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            check_settings(checked, bound.arguments)
            return owner(*args, **kwargs)

        checked.setting_ranges = rules
        return checked

    return declare


def _checked_class(owner, rules):
    """`owner` (decorated before @dataclass makes its __init__) checking its fields on creation."""
    own = owner.__dict__.get("__post_init__")

    def __post_init__(self):
        check_settings(owner, {field.name: getattr(self, field.name) for field in dataclasses.fields(self)})
        if own is not None:
            own(self)

    owner.__post_init__ = __post_init__
    owner.setting_ranges = rules
    return owner


class Options:
    """What a group of settings that no registered function takes allows (a command's options)."""

    def __init__(self, **rules):
        self.setting_ranges = rules


def declared_ranges(owner) -> Dict:
    """The rules `@ranges` declared on a function or class ({} when none)."""
    return getattr(owner, "setting_ranges", None) or {}


def _function(registry_name: str, name: str):
    from catalogue import RegistryError
    from confection import registry

    table = getattr(registry, registry_name, None)
    if table is None:
        return None
    try:
        return table.get(name)
    except RegistryError:
        return None  # an unknown name: the resolver reports it with the names it knows


def rules_of(node) -> Dict:
    """The setting rules of the registered function a config section names (none: {})."""
    refs = [(key[1:], value) for key, value in node.items() if key.startswith("@")]
    if not refs:
        return {}
    return declared_ranges(_function(*refs[0]))


def _annotations(owner) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(owner)
    except Exception:  # noqa: BLE001 - an annotation that does not resolve: no type check
        return {}


def _expected(annotation) -> Optional[type]:
    """int, float or str where the annotation is one of them (or Optional of one), else None."""
    if annotation in (int, float, str):
        return annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) is typing.Union and len(args) == 1 and args[0] in (int, float, str):
        return args[0]
    return None


def _type_problem(value, expected: Optional[type]) -> Optional[str]:
    if value is None or expected is None:
        return None
    if expected is int and (isinstance(value, bool) or not isinstance(value, int)):
        return "must be an integer" + (", not a string" if isinstance(value, str) else "")
    if expected is float and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return "must be a number" + (", not a string" if isinstance(value, str) else "")
    if expected is str and not isinstance(value, str):
        return "must be a string"
    return None


def _similarity_problem(value) -> Optional[str]:
    if value is None or any(hasattr(value, name) for name in ("matrix", "encode")):
        return None
    return "not a similarity backend: a @simalign_similarity function goes here"


def setting_problems(owner, values: Mapping[str, Any], flags: bool = False) -> List[str]:
    """Every setting of `values` (arguments of `owner`) that its declaration or type refuses."""
    rules = declared_ranges(owner)
    hints = _annotations(getattr(owner, "__wrapped__", owner))
    out: List[str] = []
    for key, value in values.items():
        problem = _type_problem(value, _expected(hints.get(key)))
        if problem is None:
            problem = number_problem(value)
        if problem is None and key == "similarity":
            problem = _similarity_problem(value)
        if problem is None and key in rules:
            problem = rules[key].problem(value)
        if problem:
            name = f"--{key.replace('_', '-')}" if flags else key
            out.append(f"{name} = {shown(value)}: {problem}")
    return out


def config_problems(node: Mapping, where: str = "") -> List[str]:
    """Every setting of a parsed config section and the sections inside it that the check refuses,
    found before spaCy resolves it (spaCy's own check of a component's config comes first and names
    nothing): a section naming a registered function has its settings checked as a call of it
    checks them; any other value only by number_problem. A section is named by its function, else
    by its dotted path (`where`); a value still to interpolate (${...}) is left to the resolver."""
    from . import registries as _registries  # noqa: F401  (creates the plugin's registries)

    refs = [(key[1:], value) for key, value in node.items() if key.startswith("@")]
    function = _function(*refs[0]) if refs and isinstance(refs[0][1], str) else None
    values = {
        key: value
        for key, value in node.items()
        if not key.startswith("@") and not isinstance(value, dict) and not (isinstance(value, str) and "${" in value)
    }
    out: List[str] = []
    if function is not None and declared_ranges(function):
        found = setting_problems(function, values)
        if found:
            out.append(f"{registered_name(function)}: {'; '.join(found)}")
    else:
        found = [
            f"{key} = {shown(value)}: {problem}" for key, value in values.items() if (problem := number_problem(value))
        ]
        if found:
            out.append(f"[{where}] {'; '.join(found)}" if where else "; ".join(found))
    for key, value in node.items():
        if isinstance(value, dict):
            out.extend(config_problems(value, f"{where}.{key}" if where else str(key)))
    return out


def registered_name(owner) -> str:
    """The name `owner` is registered under (spacy-simalign.CRFAligner.v2), else its own name."""
    import catalogue

    for key, value in list(catalogue.REGISTRY.items()):
        if value is owner:
            return key[-1]
    return getattr(owner, "__qualname__", type(owner).__name__)


def check_settings(owner, values: Mapping[str, Any], flags: bool = False) -> None:
    """Refuse, in one line, every setting of `values` that `owner` declares out of range or of the
    wrong type (flags: they are command-line options, named --like-this)."""
    found = setting_problems(owner, values, flags)
    if found:
        raise setting_error("; ".join(found) if flags else f"{registered_name(owner)}: {'; '.join(found)}")


def setting_error(message: str):
    """The error of a refused setting: an InputError that spaCy's command line prints as a message."""
    from .config_errors import SettingError
    from .errors import InputError

    return SettingError(InputError(message))
