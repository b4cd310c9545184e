"""Setting ranges, checked on a config before anything is built or aligned: a registered
function declares the range of each numeric setting with `@ranges(top_k=AT_LEAST_1, ...)`, and
check_config walks a config section and reports every value out of range (and every NaN or
infinite number, whatever the setting) with its config path, as one line. A sub-section in a
`similarity` slot must name a similarity backend (@simalign_similarity), not an aligner.

confection checks only types: `top_k = -3` or `threshold = NaN` would otherwise be accepted and
then change the beads silently or crash mid-run."""

import math
from dataclasses import dataclass
from typing import Dict, List, Optional

# the registry every slot of that name takes (a sub-section there must name one of its functions)
SLOTS = {"similarity": "simalign_similarity"}


@dataclass(frozen=True)
class Range:
    """A closed interval (either end open when None); `None` values (the weights' own, for the CRF) pass."""

    low: Optional[float] = None
    high: Optional[float] = None

    def problem(self, value) -> Optional[str]:
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            return None  # a type error is confection's to report
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            if self.high is None:
                return f"must be at least {self.low}"
            if self.low is None:
                return f"must be at most {self.high}"
            return f"must be between {self.low} and {self.high}"
        return None


AT_LEAST_0 = Range(0)
AT_LEAST_1 = Range(1)
AT_LEAST_2 = Range(2)
UNIT = Range(0, 1)  # probabilities, shares, relative distances
COSINE = Range(-1, 1)  # a similarity threshold (embedding cosines may be negative)


def shown(value) -> str:
    """A value as a config file writes it (true, null, "text", 0.5)."""
    import json

    return json.dumps(value) if isinstance(value, (bool, str)) or value is None else str(value)


def ranges(**rules):
    """Declare the ranges of a registered function's settings (a decorator; classes too)."""

    def declare(function):
        function.setting_ranges = rules
        return function

    return declare


def declared_ranges(owner) -> Dict:
    """The ranges `@ranges` declared on a function or class ({} when none)."""
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


def problems(node, path: str, rules: Optional[Dict[str, Range]] = None) -> List[str]:
    """Every setting of the config tree `node` (at config path `path`) out of its range."""
    out: List[str] = []
    if not isinstance(node, dict):
        return out
    if any(key.startswith("@") for key in node):
        rules = rules_of(node)
    rules = rules or {}
    for key, value in node.items():
        if key.startswith("@"):
            continue
        where = f"{path}.{key}"
        if isinstance(value, dict):
            wanted = SLOTS.get(key)
            named = [(k[1:], v) for k, v in value.items() if k.startswith("@")]
            if wanted and named and named[0][0] != wanted:
                out.append(
                    f"{where}: names {named[0][1]} of @{named[0][0]}: a similarity backend (@{wanted}) goes here"
                )
                continue
            out.extend(problems(value, where, None))
        elif isinstance(value, float) and not math.isfinite(value):
            out.append(f"{where} = {value}: must be a finite number")
        elif key in rules:
            problem = rules[key].problem(value)
            if problem:
                out.append(f"{where} = {shown(value)}: {problem}")
    return out


def check_config(section_config, section: str) -> None:
    """Raise ValueError naming every out-of-range setting of the [section] (config paths)."""
    found = problems(section_config, section)
    if found:
        raise ValueError("; ".join(found))
