"""What an align run does to every batch (the job every engine ships to its workers), and the
settings of it that change the output (recorded for --resume). No spaCy here: building the
command line stays light."""

from dataclasses import dataclass
from typing import Any, Dict, Optional


@dataclass(frozen=True)
class AlignJob:
    """What to run on every batch: the [aligner] config text, an optional model folder, the
    batch size and the BLAS/encoder threads each process may use (0: the libraries' default)."""

    aligner: str
    model: Optional[str] = None
    batch_size: int = 32
    threads: int = 0

    def settings(self) -> Dict[str, Any]:
        """The settings that change the output (recorded beside a partial output for --resume):
        the aligner as its registered name and a digest of its whole config."""
        return {"aligner": aligner_id(self.aligner), "model": self.model, "batch_size": self.batch_size}


def aligner_id(config_text: str) -> str:
    """`<registered name> <digest of the config>`: short, one line, and different for any other setting."""
    import hashlib

    from confection import Config

    name = Config().from_str(config_text)["aligner"].get("@simalign_aligners", "?")
    return f"{name} {hashlib.sha1(config_text.encode('utf-8')).hexdigest()[:12]}"
