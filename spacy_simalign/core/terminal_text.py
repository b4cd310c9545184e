"""Text from input files made safe to print to a terminal: control characters (C0 but newline
and tab, DEL, C1) and the bidirectional overrides are written as escapes (`\\x1b`, `\\u202e`), so
that a sentence or an id holding `ESC[2J` (clear the screen), an OSC title sequence or a
right-to-left override cannot act on the terminal. Every print of user text goes through
`safe`: errors in __main__, warnings (formats/pairs.lang_warning), `demo`'s sentences, and
through `say` the lines the commands print that echo ids or paths (align's summary, render,
stats, evaluate, convert-deplain, match-docs, ...)."""

import re
import sys

# C0 controls but \t and \n, DEL, C1 controls, and the bidi embeddings/overrides/isolates
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: "re.Match") -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: str, newlines: bool = True) -> str:
    """`text` with every terminal control character escaped; `newlines=False` escapes \\n too
    (for a line that must stay one line)."""
    text = _UNSAFE.sub(_escape, str(text))
    return text if newlines else text.replace("\n", "\\n")


def say(text: str, err: bool = False, flush: bool = False) -> None:
    """Print `text` escaped by `safe` to stdout, or to stderr with `err`."""
    print(safe(text), file=sys.stderr if err else sys.stdout, flush=flush)
