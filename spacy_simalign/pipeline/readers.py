"""The corpus reader `spacy-simalign.PairCorpus.v1`: gold Doc pairs as spaCy Examples for
`spacy train` and evaluation. It reads pair JSONL (../shared/FORMATS.md) or a DocBin of
Doc pairs saved with store_user_data=True; each Example's reference Doc carries the gold
beads, its predicted Doc the same two sides without them."""

from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Union

from spacy.language import Language
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import registry

from ..core.errors import InputError
from ..formats.pair_jsonl import PairRecord, read_pairs
from . import doc_pair as pair


def gold_doc(nlp: Language, record: PairRecord, path: str = "<input>") -> Doc:
    """The reference Doc pair of a validated record; it needs gold and pre-segmented sides
    (gold indices refer to the given sentences)."""
    if record.gold is None:
        raise InputError(
            f"pair '{record.id}' has no 'gold': a training or evaluation corpus needs gold beads", path, record.line
        )
    for name in pair.SIDE_NAMES:
        if not record.is_presegmented(name):
            raise InputError(
                f"side '{name}' of '{record.id}' is raw text: gold needs pre-segmented sides "
                "('paragraphs', lists of sentences)",
                path,
                record.line,
            )
    return pair.make_pair(
        nlp,
        record.side_input("complex"),
        record.side_input("simple"),
        record.lang,
        record.lang_simple,
        id=record.id,
        gold=record.gold,
    )


def gold_docs_from_jsonl(nlp: Language, path: Union[str, Path], limit: int = 0) -> Iterator[Doc]:
    """Reference Doc pairs of a pair JSONL file."""
    for count, record in enumerate(read_pairs(str(path)), start=1):
        yield gold_doc(nlp, record, str(path))
        if limit and count >= limit:
            return


def gold_docs_from_docbin(nlp: Language, path: Union[str, Path], limit: int = 0) -> Iterator[Doc]:
    pair.install_extensions()
    try:
        docbin = DocBin(store_user_data=True).from_disk(path)
    except (OSError, ValueError) as err:
        raise InputError(f"not a DocBin of Doc pairs ({err})", str(path)) from None
    for count, doc in enumerate(docbin.get_docs(nlp.vocab), start=1):
        if doc._.pair_info is None:
            raise InputError(
                f"Doc {count} is not a Doc pair (no pair_info): write it with DocBin(store_user_data=True)", str(path)
            )
        yield doc
        if limit and count >= limit:
            return


def predicted_doc(reference: Doc) -> Doc:
    """The reference pair without its alignments: what the pipeline receives."""
    doc = reference.copy()
    doc._.alignment_data = None
    doc._.paragraph_alignment_data = None
    return doc


def read_gold_docs(nlp: Language, path: Union[str, Path], limit: int = 0) -> Iterator[Doc]:
    """Gold Doc pairs from a .jsonl file or a .spacy DocBin, or from every such file in a folder."""
    path = Path(path)
    if path.is_dir():
        files: List[Path] = sorted(p for p in path.iterdir() if p.suffix in (".jsonl", ".spacy"))
        if not files:
            raise InputError("no .jsonl or .spacy files in this folder", str(path))
    elif path.exists():
        files = [path]
    else:
        raise InputError("no such file or folder", str(path))
    seen = 0
    for file in files:
        reader = gold_docs_from_docbin if file.suffix == ".spacy" else gold_docs_from_jsonl
        for doc in reader(nlp, file, (limit - seen) if limit else 0):
            yield doc
            seen += 1
            if limit and seen >= limit:
                return


class PairCorpus:
    """Iterate the Examples of a gold pair corpus (pair JSONL or DocBin) for spaCy training."""

    def __init__(self, path: Union[str, Path], limit: int = 0):
        self.path, self.limit = path, limit

    def __call__(self, nlp: Language) -> Iterator[Example]:
        for reference in read_gold_docs(nlp, self.path, self.limit):
            yield Example(predicted_doc(reference), reference)


@registry.readers("spacy-simalign.PairCorpus.v1")
def create_pair_corpus(path: Path, limit: int = 0) -> Callable[[Language], Iterable[Example]]:
    """Examples of gold Doc pairs from pair JSONL or a DocBin; `limit` documents (0 = all)."""
    return PairCorpus(path, limit)
