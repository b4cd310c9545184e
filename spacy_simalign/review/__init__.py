"""Correct alignments by hand in a local web page that saves them as the `gold` of pair JSONL
(`python -m spacy_simalign review PAIRS.jsonl [ALIGNMENTS.jsonl] --port N`): the Flask app
(app.py, the `review` extra), the pair store it saves through (store.py), and the static HTML view
that `render` writes (render.py, no extra needed). Nothing is imported here, so that `render` and
`demo` run without Flask."""
