"""The simalign_paragraph_aligner component in a pipeline: paragraph links on the Doc pair,
used by the sentence aligner, scored against the paragraph pairs implied by gold."""

import pytest
import spacy

from spacy_simalign.aligners.methods import method_config
from spacy_simalign.aligners.scoring import PRF, paragraph_pairs
from spacy_simalign.pipeline import doc_pair as pair

METHODS = ["jiang", "jiang-wiki", "massalign", "tfidf"]


def pipeline(method):
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_segmenter")
    nlp.add_pipe("simalign_paragraph_aligner", config={"aligner": method_config(method, paragraph=True)["aligner"]})
    nlp.add_pipe(
        "simalign_sentence_aligner", config={"aligner": method_config("tfidf")["aligner"], "use_paragraphs": True}
    )
    return nlp


@pytest.mark.parametrize("method", METHODS)
def test_paragraph_links_are_valid_and_mostly_gold(method, deplain_pairs):
    nlp = pipeline(method)
    prf, baseline = PRF(), PRF()
    for record in deplain_pairs:
        doc = nlp(pair.make_pair(nlp, record["complex"]["paragraphs"], record["simple"]["paragraphs"]))
        c, s = pair.side_of(doc, "complex"), pair.side_of(doc, "simple")
        links = doc._.paragraph_alignment
        predicted = set()
        for link in links:
            assert link.complex and link.simple and 0.0 <= link.score <= 1.0
            assert all(0 <= k < len(c.paragraphs) for k in link.complex)
            assert all(0 <= k < len(s.paragraphs) for k in link.simple)
            predicted |= {(a, b) for a in link.complex for b in link.simple}
        gold = paragraph_pairs({lk for b in record["gold"] for lk in zip_links(b)}, c.paragraph_of(), s.paragraph_of())
        prf.add(len(gold & predicted), len(predicted), len(gold))
        guess = position_guess(len(c.paragraphs), len(s.paragraphs))
        baseline.add(len(gold & guess), len(guess), len(gold))
        # the sentence aligner stays inside the linked paragraphs (with no link at all it falls
        # back to the whole document)
        c_para, s_para = c.paragraph_of(), s.paragraph_of()
        for bead in doc._.beads if links else []:
            assert all((c_para[i], s_para[j]) in predicted for i in bead.complex for j in bead.simple)
    # Each method must clearly beat guessing by relative position, and most of its links must be gold.
    assert prf.f >= baseline.f + 0.1, (method, prf.f, baseline.f)
    assert prf.p >= 0.7, (method, prf.p, prf.r)


def position_guess(n_complex, n_simple):
    """Each simple paragraph linked to the complex paragraph at the same relative position."""
    return {(min(n_complex - 1, int(j * n_complex / n_simple)), j) for j in range(n_simple)} if n_complex else set()


def zip_links(bead):
    return [(c, s) for c in bead[0] for s in bead[1]]


def test_paragraph_aligner_leaves_plain_docs_alone():
    nlp = spacy.blank("de")
    nlp.add_pipe("simalign_paragraph_aligner")
    doc = nlp("Ein Satz. Noch ein Satz.")
    assert doc._.paragraph_alignment == []
