"""A stand-in for a Kubernetes API server, on a local port, for the submit path of
podfold's TorchX schedulers: the kubernetes client talks HTTP to it as to a cluster.

It answers every ``POST`` of a custom object with ``status`` and, for a 2xx, the object
it was sent (what the API server answers a create or a dry run with), and records each
request: the path, the query (``dryRun=All``) and the body. An object created (not a dry
run) can be read back with ``GET``, as ``Pending``: ``torchx run`` asks for the job's
status once it is submitted. A kubeconfig that points at it (:meth:`ApiServer.kubeconfig`)
lets a ``torchx`` subprocess find it as a user's cluster.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any

    @property
    def dry_run(self) -> bool:
        return self.query.get("dryRun") == ["All"]


@dataclass
class ApiServer:
    host: str
    status: int = 201
    message: str = ""
    details: dict[str, Any] | None = None
    requests: list[Request] = field(default_factory=list)
    created: dict[str, Any] = field(default_factory=dict)

    def posts(self) -> list[Request]:
        """The objects sent, dry runs included, in the order sent."""
        return [request for request in self.requests if request.method == "POST"]

    def client(self) -> Any:
        """A kubernetes ``ApiClient`` for this server, as a kubeconfig would give it."""
        from kubernetes.client import ApiClient, Configuration

        return ApiClient(Configuration(host=self.host))

    def kubeconfig(self, directory: Path) -> Path:
        """A kubeconfig file whose current context is this server."""
        path = directory / "kubeconfig"
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "fake",
                    "clusters": [{"name": "fake", "cluster": {"server": self.host}}],
                    "users": [{"name": "fake", "user": {"token": "t"}}],
                    "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "fake"}}],
                }
            )
        )
        return path


def _status(code: int, message: str, details: dict[str, Any] | None = None) -> dict[str, Any]:
    """A Status object, as the API server refuses with."""
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "message": message,
        "code": code,
    }
    return status if details is None else {**status, "details": details}


def _handler(server: ApiServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            url = urlsplit(self.path)
            request = Request("POST", url.path, parse_qs(url.query), body)
            server.requests.append(request)
            if 200 <= server.status < 300:
                if not request.dry_run:
                    server.created[f"{url.path}/{body['metadata']['name']}"] = body
                self._answer(server.status, body)
            else:
                self._answer(server.status, _status(server.status, server.message, server.details))

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            server.requests.append(Request("GET", url.path, parse_qs(url.query), None))
            found = server.created.get(url.path.removesuffix("/status"))
            if found is None:
                self._answer(404, _status(404, f"{url.path} not found"))
            else:
                self._answer(200, {**found, "status": {"state": {"phase": "Pending"}}})

        def _answer(self, status: int, answer: Any) -> None:
            payload = json.dumps(answer).encode()
            # the reason as the API server (Go's net/http) words it, on every Python: 3.13's
            # http.server says "Unprocessable Content" for 422, Go "Unprocessable Entity"
            self.send_response(status, _GO_REASONS.get(status))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: the test reads the requests instead

    return Handler


_GO_REASONS = {422: "Unprocessable Entity"}


@contextmanager
def api_server(
    status: int = 201, message: str = "", details: dict[str, Any] | None = None
) -> Iterator[ApiServer]:
    """A running :class:`ApiServer` answering ``status`` (and, when refusing, a Status
    with ``message`` and ``details``)."""
    state = ApiServer(host="", status=status, message=message, details=details)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.host = f"http://127.0.0.1:{httpd.server_address[1]}"
    # shutdown() waits out a poll: a short one, not the default half second per server
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


def closed_port() -> str:
    """The address of a local port nothing listens on (connections are refused)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
