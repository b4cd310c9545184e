"""What an align run does to every batch (the job every engine ships to its workers), the
settings of it that change the output (recorded for --resume), and what every output line says
it was made from (`made_from`: a digest of its input pair, one of those settings and one of each
side's sentences as aligned), so that --resume can tell a line of an input edited since, or of
another --method or config, from one that still holds, and evaluate and export can tell a line
whose pair's sentences changed from one whose pair only gained gold or another field. No spaCy
here: building the command line stays light."""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass(frozen=True)
class AlignJob:
    """What to run on every batch: the [aligner] config text, an optional model folder, the
    batch size and the BLAS/encoder threads each process may use (0: the libraries' default).
    The text is what the output records (its digest) and what caches key on; it is parsed once,
    by `config()`, and the parsed config travels with the job to the workers."""

    aligner: str
    model: Optional[str] = None
    batch_size: int = 32
    threads: int = 0
    parsed: Any = field(default=None, compare=False, repr=False)

    def config(self):
        """The [aligner] config, parsed from the text on first use (the workers get it parsed)."""
        if self.parsed is None:
            from confection import Config

            object.__setattr__(self, "parsed", Config().from_str(self.aligner))
        return self.parsed

    def settings(self) -> Dict[str, Any]:
        """The settings that change the output (recorded beside a partial output for --resume):
        the aligner as its registered name and a digest of its whole config."""
        name = self.config()["aligner"].get("@simalign_aligners", "?")
        return {"aligner": aligner_id(self.aligner, name), "model": self.model, "batch_size": self.batch_size}

    def digest(self) -> str:
        """The `made_from.settings` of every output line: the whole aligner config, the model
        folder and the batch size (what shapes the output), hashed."""
        return digest([self.aligner, self.model, self.batch_size])


def digest(value: Any) -> str:
    """16 hex digits of the SHA-256 of `value` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def pair_digest(record) -> str:
    """The `made_from.pair` of a pair record: its whole object and the languages it is aligned
    in (`--lang` fills in a missing one), so any edit of the line changes it, and reformatting
    the JSON does not."""
    return digest([record.raw, record.lang, record.lang_simple])


def sentences_digest(sentences: List[str]) -> str:
    """The `made_from.sentences` of one side: its sentences as aligned, whitespace left out (as
    the readers compare sentences), so that only an edit of the text changes it."""
    return digest(["".join(sentence.split()) for sentence in sentences])


def made_from(record, settings_digest: str, line: Dict[str, Any]) -> Dict[str, Any]:
    """What an output line records of its making (FORMATS.md, alignment JSONL `made_from`): the pair's
    digest, the run's settings digest (AlignJob.digest, computed once per batch) and a digest of
    each side's sentences as aligned: those the `line` carries (a raw-text side, as segmented),
    else the pair's own (a pre-segmented side, whose sentences the line does not carry)."""
    sentences = {}
    for name in ("complex", "simple"):
        carried = line.get(f"{name}_sentences")
        sentences[name] = sentences_digest(record.side(name).sentences if carried is None else carried)
    return {"pair": pair_digest(record), "settings": settings_digest, "sentences": sentences}


def aligner_id(config_text: str, name: str) -> str:
    """`<registered name> <digest of the config>`: short, one line, and different for any other setting."""
    return f"{name} {hashlib.sha1(config_text.encode('utf-8')).hexdigest()[:12]}"
