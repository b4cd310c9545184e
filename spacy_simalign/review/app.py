"""The review web app (Flask): one page to walk through the pairs and correct their links,
and a small JSON API behind it. Meant for 127.0.0.1 only, and for the person who started it:

- requests naming another host are refused (no DNS rebinding);
- every request but the static files needs the run's token, a random string printed in the
  URL the command shows (`http://127.0.0.1:8765/?token=...`, as Jupyter does): the page gets
  it from that URL and sends it with every API call (header X-Review-Token); without it, 403.
  Any other local process or user could otherwise read the pairs and save gold;
- a request that changes something must come from the page itself: an Origin header naming
  another site is refused (403), and saves must be JSON (no cross-site form posts);
- a request body above MAX_BODY bytes is refused unread (413), and a body that is not JSON
  (or nested too deeply to parse) is a 400 with a message, never a server error;
- a save that finds the disk full is a 507 with a message the page shows (the file is untouched);
- the access log never shows the token (`token=[redacted]`): a log is read by others.

A pair is named by its id in the query string (`/api/pair?id=...`), so that any id can be
opened: in a path, `.` and `..` are dot segments that browsers remove before sending (even as
%2E), and an id starting with `/` became `//` that werkzeug redirected; the older
`/api/pairs/<id>` routes stay for ids that survive a path."""

import hmac
import json
import os
import re
import secrets
import socket
import threading
from typing import Optional, cast

from flask import Flask, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.serving import WSGIRequestHandler, make_server

from ..core.errors import InputError, OutputError
from .render import TEMPLATES
from .store import Conflict, PairStore

LOCAL_HOSTS = ("127.0.0.1", "localhost")
TOKEN_HEADER = "X-Review-Token"
MAX_BODY = 2 * 1024 * 1024  # a pair's gold is a few kB; the largest real pair's is under 100 kB
OPEN_PATHS = ("/static/", "/favicon.ico")
TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"'#]*")


def redact(text: str) -> str:
    """`text` with the value of every `token=` parameter replaced by [redacted]."""
    return TOKEN_IN_URL.sub(r"\1[redacted]", text)


class RedactingRequestHandler(WSGIRequestHandler):
    """werkzeug's request handler, whose access log lines never show the token."""

    def log(self, type: str, message: str, *args) -> None:
        super().log(type, "%s", redact(message % args if args else message))


def new_token() -> str:
    return secrets.token_urlsafe(24)


def read_json_body():
    """The request body as JSON, or (response, status) for a body that is not JSON."""
    try:
        return json.loads(request.get_data(cache=True))
    except RequestEntityTooLarge:
        raise
    except RecursionError:
        return jsonify(error="not saved: the body is nested too deeply to be gold"), 400
    except ValueError as err:  # not JSON, not UTF-8, an integer of thousands of digits
        return jsonify(error=f"not saved: the body is not JSON ({str(err).splitlines()[0][:100]})"), 400


def create_app(
    pairs_path: str,
    alignments_path: Optional[str] = None,
    token: Optional[str] = None,
    order_path: Optional[str] = None,
) -> Flask:
    """The app for one pairs file (and optionally the aligner's output to start from, and `rank`'s
    output to list the pairs in); `token` is the secret every request must carry (default: a new
    random one, in app.config["TOKEN"])."""
    store = PairStore(pairs_path, alignments_path, order_path)
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=str(TEMPLATES), static_url_path="/static")
    app.config["STORE"] = store
    app.config["TOKEN"] = token = token or new_token()
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    cast(DefaultJSONProvider, app.json).ensure_ascii = False  # a new app's provider is Flask's default

    @app.before_request
    def guard():
        host = request.host.rsplit(":", 1)[0]
        if host not in LOCAL_HOSTS:
            return jsonify(error=f"this review server answers only to 127.0.0.1, not '{request.host}'"), 403
        if request.path.startswith(OPEN_PATHS):
            return None
        given = request.headers.get(TOKEN_HEADER) or request.args.get("token") or ""
        if not hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8")):
            return jsonify(
                error="missing or wrong token: open the URL that the review command printed "
                "(http://127.0.0.1:PORT/?token=...)"
            ), 403
        origin = request.headers.get("Origin")
        if (
            request.method not in ("GET", "HEAD", "OPTIONS")
            and origin is not None
            and origin != f"{request.scheme}://{request.host}"
        ):
            return jsonify(error=f"refused: a request from {origin} may not change this file"), 403
        return None

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(_err):
        return jsonify(error=f"not saved: the body is larger than {MAX_BODY // (1024 * 1024)} MB"), 413

    @app.after_request
    def no_cache(response):
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.get("/")
    def page():
        return render_template(
            "review.html",
            file_name=os.path.basename(pairs_path),
            token=token,
            alignments_name=os.path.basename(alignments_path) if alignments_path else "",
        )

    @app.get("/favicon.ico")
    def favicon():
        return "", 204

    @app.get("/api/pairs")
    def pairs():
        return jsonify(file=os.path.basename(pairs_path), pairs=store.summary())

    @app.get("/api/pair")
    def get_pair_by_query():
        return get_pair(request.args.get("id", ""))

    @app.put("/api/pair/gold")
    def save_gold_by_query():
        return save_gold(request.args.get("id", ""))

    @app.get("/api/pairs/<path:pair_id>")
    def get_pair(pair_id):
        try:
            view, etag = store.view(pair_id)
        except KeyError:
            return jsonify(error=f"no pair '{pair_id}' in {os.path.basename(pairs_path)}"), 404
        except InputError as err:
            return jsonify(error=str(err)), 500
        response = jsonify(etag=etag, **view.to_json())
        response.headers["ETag"] = f'"{etag}"'
        return response

    @app.put("/api/pairs/<path:pair_id>/gold")
    def save_gold(pair_id):
        if not request.is_json:
            return jsonify(error="send the gold as application/json"), 415
        body = read_json_body()
        if isinstance(body, tuple):
            return body
        if not isinstance(body, dict) or "gold" not in body:
            return jsonify(error='expected {"gold": [[[complex], [simple]], ...]}'), 400
        etag = (request.headers.get("If-Match") or "").strip('"') or body.get("etag")
        if not etag:
            return jsonify(error="missing If-Match: the version of the pair this edit starts from"), 428
        try:
            view, new_etag = store.save(pair_id, body["gold"], etag)
        except KeyError:
            return jsonify(error=f"no pair '{pair_id}' in {os.path.basename(pairs_path)}"), 404
        except Conflict as err:
            return jsonify(error=str(err), current=err.current), 409
        except OutputError as err:
            return jsonify(error=f"not saved: the disk is full ({err.reason}); free some space and save again"), 507
        except (ValueError, InputError) as err:
            return jsonify(error=f"not saved: {err}"), 400
        response = jsonify(etag=new_etag, saved=True, **view.to_json())
        response.headers["ETag"] = f'"{new_etag}"'
        return response

    return app


class ReviewServer:
    """The app served on 127.0.0.1:port in a background thread (port 0: a free one); `url` is
    the page's address with the token."""

    def __init__(
        self,
        pairs_path: str,
        alignments_path: Optional[str] = None,
        port: int = 0,
        token: Optional[str] = None,
        order_path: Optional[str] = None,
    ):
        self.token = token or new_token()
        self.app = create_app(pairs_path, alignments_path, self.token, order_path)
        if port:  # werkzeug exits the process on a busy port: find out first, as an OSError
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(("127.0.0.1", port))
        self.server = make_server("127.0.0.1", port, self.app, threaded=True, request_handler=RedactingRequestHandler)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}/?token={self.token}"  # what the command prints and opens
        self._thread: Optional[threading.Thread] = None

    def start(self) -> "ReviewServer":
        self._thread = threading.Thread(target=self.server.serve_forever, name="simalign-review", daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.server.serve_forever()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
