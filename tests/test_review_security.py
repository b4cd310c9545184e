"""The review server answers only to the person who started it. Every
request but the static files needs the run's token (printed in the URL), a change must not come
from another site's page (Origin), and a large or deeply nested body is refused with a message
(413, 400), never parsed for minutes or answered with a server error."""

import json
import urllib.error
import urllib.request

import pytest
from conftest import DEPLAIN_PAIRS

from spacy_simalign.review.app import ReviewServer, create_app

MAX_BODY = 2 * 1024 * 1024  # the limit docs/review.md and docs/hostile-input.md state


@pytest.fixture()
def pairs(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_bytes(b"".join(DEPLAIN_PAIRS.read_bytes().splitlines(keepends=True)[:2]))
    return path


@pytest.fixture()
def app(pairs):
    return create_app(str(pairs))


def first(pairs):
    return json.loads(pairs.read_bytes().splitlines()[0])


def save(client, pairs, token=None, origin=None, data=None, etag=None):
    obj = first(pairs)
    headers = {"If-Match": f'"{etag or "x"}"'}
    if token:
        headers["X-Review-Token"] = token
    if origin:
        headers["Origin"] = origin
    body = data if data is not None else json.dumps({"gold": obj["gold"][1:]})
    return client.put(f"/api/pairs/{obj['id']}/gold", data=body, content_type="application/json", headers=headers)


def etag_of(client, app, pairs):
    return client.get(f"/api/pairs/{first(pairs)['id']}", headers={"X-Review-Token": app.config["TOKEN"]}).get_json()[
        "etag"
    ]


def test_without_the_token_nothing_is_read_or_saved(app, pairs):
    client = app.test_client()
    before = pairs.read_bytes()
    token = app.config["TOKEN"]
    assert len(token) >= 24
    for url in ("/", "/api/pairs", f"/api/pairs/{first(pairs)['id']}"):
        response = client.get(url)
        assert response.status_code == 403 and "token" in response.get_json()["error"]
        assert client.get(url, headers={"X-Review-Token": "wrong"}).status_code == 403
    assert save(client, pairs).status_code == 403
    assert save(client, pairs, token="wrong").status_code == 403
    assert pairs.read_bytes() == before
    assert client.get("/static/review.js").status_code == 200  # the page's code is no secret


def test_the_page_opened_with_the_token_carries_it_for_its_api_calls(app, pairs):
    client = app.test_client()
    token = app.config["TOKEN"]
    page = client.get(f"/?token={token}")
    assert page.status_code == 200
    assert f'<meta name="review-token" content="{token}">' in page.get_data(as_text=True)
    assert "X-Review-Token" in client.get("/static/review.js").get_data(as_text=True)
    assert client.get("/api/pairs", headers={"X-Review-Token": token}).status_code == 200


def test_a_save_from_another_origin_is_refused(app, pairs):
    client = app.test_client()
    token = app.config["TOKEN"]
    before = pairs.read_bytes()
    etag = etag_of(client, app, pairs)
    for origin in ("http://evil", "null", "http://localhost:9999"):
        response = save(client, pairs, token, origin=origin, etag=etag)
        assert response.status_code == 403 and "may not change" in response.get_json()["error"]
    assert pairs.read_bytes() == before
    assert save(client, pairs, token, origin="http://localhost", etag=etag).status_code == 200


@pytest.mark.parametrize("size", [MAX_BODY + 1, 50 * 1024 * 1024])
def test_a_body_above_the_limit_is_refused_unread(app, pairs, size):
    client = app.test_client()
    before = pairs.read_bytes()
    data = json.dumps({"gold": [], "pad": "x" * size})
    response = save(client, pairs, app.config["TOKEN"], data=data, etag=etag_of(client, app, pairs))
    assert response.status_code == 413 and "larger than 2 MB" in response.get_json()["error"]
    assert pairs.read_bytes() == before


@pytest.mark.parametrize(
    "data, message",
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"gold": [[[0], [0]]]', "not JSON"),
        (b'{"gold": "\xff"}', "not JSON"),
    ],
)
def test_a_body_that_is_not_json_is_a_400_with_a_message(app, pairs, data, message):
    client = app.test_client()
    before = pairs.read_bytes()
    response = save(client, pairs, app.config["TOKEN"], data=data, etag=etag_of(client, app, pairs))
    assert response.status_code == 400 and message in response.get_json()["error"]
    assert pairs.read_bytes() == before


def test_the_real_server_refuses_curl_without_token_or_from_evil(pairs):
    """Over real HTTP, `curl -X PUT -H "Origin: http://evil" ...` gets 403, with the token too, and
    saves nothing: another site's page must not change the file."""
    server = ReviewServer(str(pairs), port=0).start()
    try:
        assert server.url.startswith(f"http://127.0.0.1:{server.port}/?token=") and server.token in server.url
        obj = first(pairs)
        url = f"http://127.0.0.1:{server.port}/api/pairs/{obj['id']}/gold"
        body = json.dumps({"gold": obj["gold"][1:]}).encode()
        for headers in ({"Origin": "http://evil"}, {"Origin": "http://evil", "X-Review-Token": server.token}):
            request = urllib.request.Request(
                url, data=body, method="PUT", headers={"Content-Type": "application/json", "If-Match": '"x"', **headers}
            )
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 403
        with urllib.request.urlopen(server.url, timeout=30) as page:
            assert page.status == 200
    finally:
        server.stop()
    assert json.loads(pairs.read_bytes().splitlines()[0]) == obj
