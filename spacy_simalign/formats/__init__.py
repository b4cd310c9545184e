"""The interchange formats of FORMATS.md, one module each, with its reader and its writer:
`pairs` (pair JSONL), `alignments` (alignment JSONL), `documents` (documents JSONL),
`matches` (matches JSONL and gold document pairs); `document_fields` names the fields of a
document that document matching embeds. `beads` is the one bead parser they all
use, `jsonl` the line reading, located errors and atomic writes they share.

Layer: plain data and the standard library (and the segmenter's rules, to read raw-text
sides); nothing here imports spaCy, the aligners or the commands."""
