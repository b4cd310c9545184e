"""Two plain text files, or two folders of them, read as pairs: the input of `align COMPLEX SIMPLE
OUTPUT` and of `pairs`, the form hunalign, vecalign and Bleualign users have. A file is raw text
(the pair JSONL side `{"text": ...}`) or, with one sentence per line, the side `{"paragraphs": ...}`
of its lines; two folders pair their files by stem. Every pair is a pair JSONL object, so aligning
the files and aligning the pair JSONL that `pairs` writes of them are one and the same."""

import os
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Optional, Union

from ..core.errors import InputError
from ..core.structures import SUPPORTED_LANGS
from ..core.terminal_text import safe
from ..segmentation.rules import is_blank
from .pair_jsonl import pair_object

SideValue = Union[str, List[List[str]]]
NEWLINE = re.compile(r"\r\n?")  # Windows and old Mac line ends, read as \n (Python's universal newlines)
BYTE_ORDER_MARK = "\ufeff"
LISTED = 10  # names a warning lists before it counts the rest


@dataclass(frozen=True)
class TextOptions:
    """How the files are read: the sides' languages, and whether a line is a sentence."""

    lang: str
    lang_simple: str
    one_sentence_per_line: bool = False

    def checked(self) -> "TextOptions":
        """The options, or an InputError for a language the segmenter does not know."""
        for option, lang in (("--lang", self.lang), ("--lang-simple", self.lang_simple)):
            if lang not in SUPPORTED_LANGS:
                raise InputError(
                    f"unknown language '{lang}' given with {option} (supported: {', '.join(SUPPORTED_LANGS)})"
                )
        return self


@dataclass(frozen=True)
class TextPair:
    """Two files holding the two sides of one document; `id` is the complex file's stem."""

    id: str
    complex: str
    simple: str


def file_stem(path: str) -> str:
    """The file's name without its last extension: `doc1.de` and `doc1.fr` are both `doc1`."""
    return os.path.splitext(os.path.basename(path))[0]


def stem_key(stem: str) -> str:
    """What stems pair by: the stem in Unicode's composed form (NFC), so that `café` written by
    macOS (decomposed, NFD) pairs with the same name written elsewhere."""
    return unicodedata.normalize("NFC", stem)


def folder_files(folder: str, suffix: str = "") -> Dict[str, str]:
    """The folder's files by stem_key (only those whose name ends with `suffix`), hidden files and
    subfolders aside; two files with one key (the same stem, or stems that differ only in how their
    characters are composed) are an error."""
    try:
        names = sorted(os.listdir(folder))
    except OSError as err:
        raise InputError(f"cannot read folder: {err.strerror}", folder) from None
    files: Dict[str, str] = {}
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or not name.endswith(suffix) or not os.path.isfile(path):
            continue
        stem, key = file_stem(name), stem_key(file_stem(name))
        if key in files:
            first = os.path.basename(files[key])
            what = (
                f"the stem '{stem}': {first} and {name}"
                if file_stem(first) == stem
                else f"stems equal once composed (Unicode NFC): {first} and {name}, written "
                f"{ascii(file_stem(first))} and {ascii(stem)}"
            )
            raise InputError(f"two files with {what} (files pair by their name without its last extension)", folder)
        files[key] = path
    return files


def listed(names: List[str]) -> str:
    """Names joined by commas, the first LISTED of them, then how many more."""
    shown = ", ".join(names[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def pair_paths(complex_path: str, simple_path: str, warn: Callable[[str], None]) -> List[TextPair]:
    """The pairs of two files, or of two folders' files by stem (stem_key) in sorted order, each
    named by its complex file's stem as written; a stem on one side only is left out, all of them
    named in one call of `warn`."""
    for path in (complex_path, simple_path):
        if not os.path.exists(path):
            raise InputError("no such file or folder", path)
    folders = os.path.isdir(complex_path), os.path.isdir(simple_path)
    if folders == (False, False):
        return [TextPair(file_stem(complex_path), complex_path, simple_path)]
    if folders != (True, True):
        folder, file = (complex_path, simple_path) if folders[0] else (simple_path, complex_path)
        raise InputError(f"a file, but {folder} is a folder: give two files or two folders", file)
    complex_files, simple_files = folder_files(complex_path), folder_files(simple_path)
    common = sorted(set(complex_files) & set(simple_files))
    if not common:
        raise InputError(
            f"no file of {complex_path} has the stem of a file of {simple_path} "
            f"({len(complex_files)} and {len(simple_files)} files; doc1.de pairs with doc1.fr)",
            complex_path,
        )
    alone = sorted(complex_files.keys() - simple_files.keys()) + sorted(simple_files.keys() - complex_files.keys())
    if alone:
        paths = [complex_files.get(stem) or simple_files[stem] for stem in alone]
        warn(
            safe(
                f"warning: {len(alone)} file{'s' if len(alone) > 1 else ''} with no file of the same stem on the "
                f"other side, not aligned: {listed(paths)}",
                newlines=False,
            )
        )
    return [TextPair(file_stem(complex_files[key]), complex_files[key], simple_files[key]) for key in common]


def read_text(path: str) -> str:
    """A file's text: UTF-8 (a byte-order mark dropped), line ends made \\n; bytes that are not
    UTF-8 are an error naming the line."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = data.rfind(b"\n", 0, err.start) + 1
        line = data.count(b"\n", 0, err.start) + 1
        raise InputError(f"not UTF-8 (byte {err.start - line_start})", path, line) from None
    return NEWLINE.sub("\n", text.removeprefix(BYTE_ORDER_MARK))


def line_paragraphs(text: str) -> List[List[str]]:
    """One sentence per line, kept exactly; blank lines (or lines that show nothing) end a paragraph."""
    paragraphs: List[List[str]] = [[]]
    for line in text.split("\n"):
        if is_blank(line):
            if paragraphs[-1]:
                paragraphs.append([])
        else:
            paragraphs[-1].append(line)
    return [para for para in paragraphs if para]


def side_value(text: str, one_sentence_per_line: bool) -> SideValue:
    """The pair JSONL side of a file's text: raw text, or the paragraphs of its lines."""
    return line_paragraphs(text) if one_sentence_per_line else text


def read_text_pairs(
    complex_path: str, simple_path: str, options: TextOptions, warn: Callable[[str], None]
) -> Iterator[Dict[str, Any]]:
    """The pair JSONL objects of two files or folders (pair_paths), read one pair at a time;
    files with no text are empty sides (no beads), named in one call of `warn` at the end."""
    empty: List[str] = []
    for pair in pair_paths(complex_path, simple_path, warn):
        sides: List[SideValue] = []
        for path in (pair.complex, pair.simple):
            text = read_text(path)
            if is_blank(text):
                empty.append(path)
            sides.append(side_value(text, options.one_sentence_per_line))
        yield pair_object(pair.id, sides[0], sides[1], options.lang, options.lang_simple)
    if empty:
        warn(
            safe(
                f"warning: {listed(empty)} {'has' if len(empty) == 1 else 'have'} no text: "
                "an empty side, aligned to nothing",
                newlines=False,
            )
        )


def text_options(lang: Optional[str], lang_simple: Optional[str], one_sentence_per_line: bool) -> TextOptions:
    """TextOptions from command-line values: --lang is required, --lang-simple defaults to it."""
    if not lang:
        raise InputError("give --lang: the language of COMPLEX (and --lang-simple for SIMPLE's, if it differs)")
    return TextOptions(lang, lang_simple or lang, one_sentence_per_line).checked()
