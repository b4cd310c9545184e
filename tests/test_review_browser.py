"""The review page end to end in a real headless browser (Debian's chromium driven by Playwright):
link and unlink sentences with the mouse and the keyboard, save, read the saved JSONL back;
a second tab's stale save is refused visibly; the page and the static view render."""

import json
import os

import pytest

from spacy_simalign.review.app import ReviewServer
from spacy_simalign.review.render import render

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="session")
def chromium():
    """Installed by `make browser` (a prerequisite of `make test-all`), not by the tests."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"Debian chromium is needed at {CHROMIUM} for browser tests: run `make browser`")
    return CHROMIUM


@pytest.fixture(scope="session")
def browser(chromium):
    sync_api = pytest.importorskip("playwright.sync_api")
    playwright = sync_api.sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=chromium, args=LAUNCH_ARGS)
    yield browser
    browser.close()
    playwright.stop()


def unaligned(obj, side):
    n = sum(len(p) for p in obj[side]["paragraphs"])
    used = {i for bead in obj["gold"] for i in bead[0 if side == "complex" else 1]}
    return [i for i in range(n) if i not in used]


@pytest.fixture()
def review(tmp_path, deplain_pairs):
    """A review server on a free 127.0.0.1 port over four real pairs, the first of which has both a
    deleted complex and an added simple sentence and a 1:1 bead."""
    target = next(
        o
        for o in deplain_pairs
        if unaligned(o, "complex") and unaligned(o, "simple") and any(len(c) == len(s) == 1 for c, s in o["gold"])
    )
    objs = [target] + [o for o in deplain_pairs if o["id"] != target["id"]][:3]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    server = ReviewServer(str(pairs), port=0).start()
    yield server, pairs, target
    server.stop()


@pytest.fixture()
def page_of(browser):
    """Open pages in one browser context; collects JavaScript errors, which fail the test."""
    context = browser.new_context(viewport=VIEWPORT)
    errors = []

    def open_page(url):
        page = context.new_page()
        page.set_default_timeout(15000)
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(url)
        page.wait_for_selector(".sa-pair .sa-sent")
        return page

    yield open_page
    context.close()
    assert errors == []


def sentence(page, side, index):
    return page.locator(f'.sa-sent[data-side="{side}"][data-index="{index}"]')


def saved_gold(pairs, pair_id):
    for line in pairs.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if obj["id"] == pair_id:
            return obj.get("gold")
    raise KeyError(pair_id)


def wait_saved(page):
    page.wait_for_selector("#status.rv-ok")


def test_click_adds_a_link_and_save_writes_gold(review, page_of):
    server, pairs, target = review
    before = pairs.read_bytes().splitlines(keepends=True)
    c, s = unaligned(target, "complex")[0], unaligned(target, "simple")[0]
    page = page_of(server.url + "#" + target["id"])
    assert "sa-deleted" in sentence(page, "complex", c).get_attribute("class")
    sentence(page, "complex", c).click()
    sentence(page, "simple", s).click()
    bead = sentence(page, "complex", c).get_attribute("data-beads")
    assert bead and sentence(page, "simple", s).get_attribute("data-beads") == bead
    assert "unsaved" in page.locator("#status").text_content()
    page.click("#save")
    wait_saved(page)
    assert saved_gold(pairs, target["id"]) == sorted(target["gold"] + [[[c], [s]]])
    after = pairs.read_bytes().splitlines(keepends=True)
    assert after[1:] == before[1:]


def test_click_on_linked_pair_removes_the_link(review, page_of):
    server, pairs, target = review
    c, s = next((c, s) for c, s in target["gold"] if len(c) == len(s) == 1)
    page = page_of(server.url + "#" + target["id"])
    sentence(page, "complex", c[0]).click()
    sentence(page, "simple", s[0]).click()
    assert "sa-deleted" in sentence(page, "complex", c[0]).get_attribute("class")
    assert "sa-added" in sentence(page, "simple", s[0]).get_attribute("class")
    page.keyboard.press("Control+s")
    wait_saved(page)
    assert saved_gold(pairs, target["id"]) == sorted(b for b in target["gold"] if b != [c, s])


def test_keyboard_links_and_saves(review, page_of):
    server, pairs, target = review
    c, s = unaligned(target, "complex")[0], unaligned(target, "simple")[0]
    n_simple = sum(len(p) for p in target["simple"]["paragraphs"])
    page = page_of(server.url + "#" + target["id"])
    page.keyboard.press("j")  # the cursor appears on complex sentence 0
    for _ in range(c):
        page.keyboard.press("j")
    page.keyboard.press("Space")  # select it
    assert "rv-anchor" in sentence(page, "complex", c).get_attribute("class")
    page.keyboard.press("l")  # to the simple column, at the same index (c is in no bead)
    start = min(c, n_simple - 1)
    for _ in range(abs(s - start)):
        page.keyboard.press("j" if s > start else "k")
    assert "rv-cursor" in sentence(page, "simple", s).get_attribute("class")
    page.keyboard.press("Enter")
    assert sentence(page, "simple", s).get_attribute("data-beads")
    page.keyboard.press("s")
    wait_saved(page)
    assert saved_gold(pairs, target["id"]) == sorted(target["gold"] + [[[c], [s]]])
    page.keyboard.press("u")  # undo, then save again: back to the original links
    assert "unsaved" in page.locator("#status").text_content()
    page.keyboard.press("s")
    wait_saved(page)
    assert saved_gold(pairs, target["id"]) == sorted(target["gold"])


def test_second_tab_cannot_silently_overwrite(review, page_of):
    server, pairs, target = review
    c, s = unaligned(target, "complex")[0], unaligned(target, "simple")[0]
    one = next(b for b in target["gold"] if len(b[0]) == len(b[1]) == 1)
    tab_a = page_of(server.url + "#" + target["id"])
    tab_b = page_of(server.url + "#" + target["id"])
    sentence(tab_a, "complex", c).click()
    sentence(tab_a, "simple", s).click()
    tab_a.click("#save")
    wait_saved(tab_a)
    first_save = pairs.read_bytes()
    sentence(tab_b, "complex", one[0][0]).click()
    sentence(tab_b, "simple", one[1][0]).click()
    tab_b.click("#save")
    tab_b.wait_for_selector("#conflict:not([hidden])")
    assert "another tab" in tab_b.locator("#conflict").text_content()
    assert "conflict" in tab_b.locator("#status").text_content()
    assert pairs.read_bytes() == first_save
    tab_b.click("#overwrite")  # a deliberate choice, after being told
    wait_saved(tab_b)
    assert saved_gold(pairs, target["id"]) == sorted(b for b in target["gold"] if b != one)


def is_nontrivial_png(path, size):
    from PIL import Image

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    image = Image.open(path).convert("RGB")
    assert image.size == size
    colours = image.getcolors(maxcolors=1 << 20)
    most = max(count for count, _ in colours)
    return len(colours) > 200 and most < 0.9 * size[0] * size[1]


def test_screenshots_of_review_page_and_static_view(review, page_of, tmp_path, deplain_pairs):
    server, _, target = review
    page = page_of(server.url + "#" + target["id"])
    assert page.locator("svg.sa-links path").count() >= sum(len(c) * len(s) for c, s in target["gold"][:1])
    assert page.locator(".sa-sent").count() == sum(
        len(p) for side in ("complex", "simple") for p in target[side]["paragraphs"]
    )
    shot = tmp_path / "review.png"
    page.screenshot(path=str(shot))
    assert is_nontrivial_png(shot, (VIEWPORT["width"], VIEWPORT["height"]))
    static = tmp_path / "view.html"
    static.write_text(render(target, page=True, jupyter=False), encoding="utf-8")
    view = page_of(static.as_uri())
    assert view.locator("svg.sa-links path").count() == sum(len(c) * len(s) for c, s in target["gold"])
    shot2 = tmp_path / "view.png"
    view.screenshot(path=str(shot2))
    assert is_nontrivial_png(shot2, (VIEWPORT["width"], VIEWPORT["height"]))


def test_any_id_opens_and_a_failed_load_replaces_the_pair_with_an_error(tmp_path, deplain_pairs, page_of):
    """Ids `.`, `..` and `/leading` open in the page, and a load that fails replaces the pair shown
    by an error: the page must not keep the previous pair as if it were the one asked for."""
    from urllib.parse import quote

    objs = [dict(deplain_pairs[k], id=pair_id) for k, pair_id in enumerate(["first", ".", "..", "/leading"])]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs), encoding="utf-8")
    server = ReviewServer(str(pairs), port=0).start()
    try:
        page = page_of(server.url)
        for obj in objs[1:]:
            page.select_option("#pair-select", obj["id"])
            page.wait_for_function(
                "n => document.querySelectorAll('.sa-sent').length === n",
                arg=sum(len(p) for side in ("complex", "simple") for p in obj[side]["paragraphs"]),
            )
            assert page.locator("#status.rv-error").count() == 0, page.locator("#status").text_content()
            assert page.evaluate("location.hash") == "#" + quote(obj["id"], safe="-_.!~*'()")
        page.select_option("#pair-select", "first")
        page.wait_for_selector('.sa-pair[data-pair-id="first"] .sa-sent')
        pairs.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs[:1] + objs[2:]))
        page.select_option("#pair-select", ".")  # gone from the file since the page loaded the list
        page.wait_for_selector(".rv-load-error")
        assert page.locator(".sa-sent").count() == 0
        assert "could not load .: no pair '.'" in page.locator(".rv-load-error").text_content()
    finally:
        server.stop()


def test_an_answer_that_arrives_late_does_not_replace_the_pair_asked_for_after_it(review, page_of):
    """A reviewer who moves on before a pair has loaded sees the pair asked for last, whatever order
    the server's answers come in: the earlier pair's late answer is dropped, not drawn over it."""
    server, pairs, target = review
    ids = [json.loads(line)["id"] for line in pairs.read_text(encoding="utf-8").splitlines()]
    page = page_of(server.url)
    from urllib.parse import quote

    def is_the_second(url):
        return url.endswith("/api/pair?id=" + quote(ids[1], safe=""))

    held = []
    page.route(is_the_second, lambda route: held.append(route))
    page.select_option("#pair-select", ids[1])
    while not held:  # the page has sent its request, which the route holds
        page.wait_for_timeout(20)
    page.select_option("#pair-select", ids[2])
    page.wait_for_selector(f'.sa-pair[data-pair-id="{ids[2]}"] .sa-sent')
    with page.expect_response(lambda r: is_the_second(r.url)):
        held[0].continue_()
    page.wait_for_timeout(200)  # the page handles the late answer
    assert page.locator(".sa-pair").get_attribute("data-pair-id") == ids[2]
    assert page.locator("#pair-select").input_value() == ids[2]
    assert page.locator("#status.rv-error").count() == 0
