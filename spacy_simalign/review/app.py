"""The review web app (Flask): one page to walk through the pairs and correct their links,
and a small JSON API behind it. Meant for 127.0.0.1 only: requests naming another host are
refused (no DNS rebinding), and saves must be JSON (no cross-site form posts)."""
import os
import socket
import threading
from typing import Optional

from flask import Flask, jsonify, render_template, request
from werkzeug.serving import make_server

from ..errors import InputError
from ..render import TEMPLATES
from .store import Conflict, PairStore

LOCAL_HOSTS = ("127.0.0.1", "localhost")


def create_app(pairs_path: str, alignments_path: str = None) -> Flask:
    """The app for one pairs file (and optionally the aligner's output to start from)."""
    store = PairStore(pairs_path, alignments_path)
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=str(TEMPLATES), static_url_path="/static")
    app.config["STORE"] = store
    app.json.ensure_ascii = False

    @app.before_request
    def only_local():
        host = request.host.rsplit(":", 1)[0]
        if host not in LOCAL_HOSTS:
            return jsonify(error=f"this review server answers only to 127.0.0.1, not '{request.host}'"), 403
        return None

    @app.after_request
    def no_cache(response):
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.get("/")
    def page():
        return render_template("review.html", file_name=os.path.basename(pairs_path),
                               alignments_name=os.path.basename(alignments_path) if alignments_path else "")

    @app.get("/favicon.ico")
    def favicon():
        return "", 204

    @app.get("/api/pairs")
    def pairs():
        return jsonify(file=os.path.basename(pairs_path), pairs=store.summary())

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
        body = request.get_json(silent=True)
        etag = (request.headers.get("If-Match") or "").strip('"') or (body or {}).get("etag")
        if not isinstance(body, dict) or "gold" not in body:
            return jsonify(error="expected {\"gold\": [[[complex], [simple]], ...]}"), 400
        if not etag:
            return jsonify(error="missing If-Match: the version of the pair this edit starts from"), 428
        try:
            view, new_etag = store.save(pair_id, body["gold"], etag)
        except KeyError:
            return jsonify(error=f"no pair '{pair_id}' in {os.path.basename(pairs_path)}"), 404
        except Conflict as err:
            return jsonify(error=str(err), current=err.current), 409
        except (ValueError, InputError) as err:
            return jsonify(error=f"not saved: {err}"), 400
        response = jsonify(etag=new_etag, saved=True, **view.to_json())
        response.headers["ETag"] = f'"{new_etag}"'
        return response

    return app


class ReviewServer:
    """The app served on 127.0.0.1:port in a background thread (port 0: a free one)."""

    def __init__(self, pairs_path: str, alignments_path: str = None, port: int = 0):
        self.app = create_app(pairs_path, alignments_path)
        if port:  # werkzeug exits the process on a busy port: find out first, as an OSError
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(("127.0.0.1", port))
        self.server = make_server("127.0.0.1", port, self.app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}/"
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
