"""Settings of the CRF aligner that spacy-simalign does not offer: experiments that were measured
and not kept (docs/crf-experiments.md). Configs and weights saved by 0.1.0 hold them at their off
value, so that value is accepted and changes nothing; any other value is refused in one line that
names the setting, its value and why."""

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional

from ...core.errors import InputError
from ...core.setting_checks import shown

ANY = object()  # a setting whose every value is accepted: it only tuned a retired experiment


@dataclass(frozen=True)
class Retired:
    """A setting that is not offered: `off`, the value saved configs hold, is accepted, and so is
    null (the weights' value, which is off); `what` names the experiment another value would switch
    on. A rule of core/setting_checks.py, so that config checks find it."""

    off: Any
    what: str

    def accepts(self, value) -> bool:
        if self.off is ANY or value is None:
            return True
        if isinstance(self.off, bool) or isinstance(value, bool) or self.off is None:
            return value is self.off
        return value == self.off

    def problem(self, value) -> Optional[str]:
        if self.accepts(value):
            return None
        return (
            f"switches on {self.what}, which spacy-simalign does not offer (measured and not kept: "
            f"docs/crf-experiments.md); only {shown(self.off)} is accepted"
        )


# the settings of spacy-simalign.CRFAligner.v2 (and of a weights folder's config.json)
ALIGNER = {
    "emission": Retired("features", "the cross-encoder emission"),
    "cross_encoder_path": Retired(None, "the cross-encoder emission"),
    "clauses": Retired(False, "the clause features"),
    "bead_text_weights": Retired(None, "the joined-text bead stage"),
    "bead_text_floor": Retired(None, "the joined-text bead stage"),
}
# the settings of spacy-simalign.CRFTraining.v1
TRAINING = {
    "encoder_learn_rate": Retired(ANY, "the cross-encoder emission"),
    "linked_only_weight": Retired(1.0, "linked-only training"),
    "bead_text_floor": Retired(0.0, "the joined-text bead stage"),
}


def without_retired(settings: Mapping[str, Any], rules: Mapping[str, Retired], path=None) -> Dict[str, Any]:
    """`settings` less the retired ones (`rules`), which must hold their off value: otherwise an
    InputError naming each (`path`: the file they were read from)."""
    found = [
        f"{key} = {shown(settings[key])}: {rule.problem(settings[key])}"
        for key, rule in rules.items()
        if key in settings and rule.problem(settings[key])
    ]
    if found:
        raise InputError("; ".join(found), None if path is None else str(path))
    return {k: v for k, v in settings.items() if k not in rules}
