"""Property-based tests (hypothesis) of every named sentence aligner (methods.SENTENCE_METHODS),
on sides drawn from real DEplain sentences: every index in range, each bead non-empty on
both sides with sorted distinct indices, beads sorted by (first complex, first simple) and
disjoint (a sentence in at most one bead per side, as aligners/lexical_aligners.py and structures.
beads_from_links document), scores in [0, 1], and the same output for the same input."""

import pytest
from conftest import load_deplain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spacy_simalign.aligners.methods import SENTENCE_METHODS, build_aligner, method_config
from spacy_simalign.core.structures import ParagraphLink, Side


def sentence_pool(n=40):
    """Real sentences of both registers (the encoder cache makes repeats cheap)."""
    pool = []
    for pair in load_deplain(limit=4):
        for name in ("complex", "simple"):
            side = pair[name]
            if "paragraphs" in side:
                pool.extend(s for para in side["paragraphs"] for s in para)
    pool = list(dict.fromkeys(pool))
    step = max(1, len(pool) // n)
    return pool[::step][:n]


POOL = sentence_pool()


def sides(max_paragraphs, max_sentences):
    paragraph = st.lists(
        st.sampled_from(POOL) | st.text(min_size=1, max_size=30).filter(str.strip), min_size=1, max_size=max_sentences
    )
    return st.lists(paragraph, min_size=0, max_size=max_paragraphs).map(lambda ps: Side.from_paragraphs(ps, "de"))


@st.composite
def problems(draw, max_paragraphs=5, max_sentences=4):
    complex_side = draw(sides(max_paragraphs, max_sentences))
    simple_side = draw(sides(max_paragraphs, max_sentences))
    links = None
    if draw(st.booleans()):
        n = min(len(complex_side.paragraphs), len(simple_side.paragraphs))
        links = [ParagraphLink((k,), (k,), 1.0) for k in range(n)]
    return complex_side, simple_side, links


def check_beads(beads, complex_side, simple_side):
    used_c, used_s = set(), set()
    for bead in beads:
        assert bead.complex and bead.simple, bead
        assert list(bead.complex) == sorted(set(bead.complex)), bead
        assert list(bead.simple) == sorted(set(bead.simple)), bead
        assert all(0 <= i < len(complex_side) for i in bead.complex), bead
        assert all(0 <= j < len(simple_side) for j in bead.simple), bead
        assert 0.0 <= bead.score <= 1.0, bead
        assert used_c.isdisjoint(bead.complex) and used_s.isdisjoint(bead.simple), bead
        used_c.update(bead.complex)
        used_s.update(bead.simple)
    keys = [(b.complex[0], b.simple[0]) for b in beads]
    assert keys == sorted(keys)
    if not len(complex_side) or not len(simple_side):
        assert beads == []


LEXICAL_METHODS = sorted(name for name in SENTENCE_METHODS if name != "crf")


def sentence_method(name):
    return build_aligner(method_config(name)).align


@pytest.mark.parametrize("name", LEXICAL_METHODS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems())
def test_lexical_aligner_properties(name, problem):
    complex_side, simple_side, links = problem
    method = sentence_method(name)
    beads = method(complex_side, simple_side, links)
    check_beads(beads, complex_side, simple_side)
    assert method(complex_side, simple_side, links) == beads


def test_every_registered_method_is_covered():
    assert set(LEXICAL_METHODS) | {"crf"} == set(SENTENCE_METHODS)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=problems(max_paragraphs=3, max_sentences=3))
def test_crf_aligner_properties(problem):
    complex_side, simple_side, links = problem
    method = sentence_method("crf")
    beads = method(complex_side, simple_side, links)
    check_beads(beads, complex_side, simple_side)
    assert method(complex_side, simple_side, links) == beads
