"""A path filter in front of a vLLM engine that runs with VLLM_SERVER_DEV_MODE=1 (standby engines).

vLLM serves its OpenAI API and, in dev mode, `/sleep`, `/wake_up`,
`/collective_rpc`, `/reset_prefix_cache` (and with sleep mode `/checkpoint/*`)
on one port, and `--api-key` guards none of those. This proxy runs beside the
engine in the launcher Pod and is the only port clients may reach (a
NetworkPolicy admits only FMA's controller to the engine port): it forwards
`/v1/*`, `/health`, `/metrics`, `/version` and `/ping` to 127.0.0.1 and answers
404 to anything else. Responses are streamed chunk by chunk, so server-sent
events (`"stream": true`) pass as they come.

Standard library only (it runs with the launcher image's Python).

    python3 v1_proxy.py --listen=8100 --upstream=127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ALLOWED_EXACT = ("/health", "/metrics", "/version", "/ping")
ALLOWED_PREFIX = "/v1/"
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailers",
    "transfer-encoding",
    "upgrade",
}
TIMEOUT_S = 3600.0  # a long generation streams for minutes


def allowed(raw_path: str) -> bool:
    """Whether a request target may pass: /v1/... or one of the exact read-only paths.

    The path is taken as sent: no '..' or encoded segment may climb out of /v1/ (refused), since
    the engine's router would resolve the path it receives, not the one checked here.
    """
    path = urlsplit(raw_path).path
    if not path.startswith("/") or "%" in path or "\\" in path:
        return False
    if any(segment in (".", "..") for segment in path.split("/")):
        return False
    return path in ALLOWED_EXACT or path.startswith(ALLOWED_PREFIX)


class Proxy(BaseHTTPRequestHandler):
    upstream = ("127.0.0.1", 8000)
    protocol_version = "HTTP/1.1"

    def _forward(self) -> None:
        if not allowed(self.path):
            refusal = b'{"error": "not found"}'
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(refusal)))
            self.end_headers()
            self.wfile.write(refusal)
            return
        length = int(self.headers.get("Content-Length") or 0)
        body: bytes | None = self.rfile.read(length) if length > 0 else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP and k.lower() != "host"}
        upstream = http.client.HTTPConnection(*self.upstream, timeout=TIMEOUT_S)
        try:
            upstream.request(self.command, self.path, body=body, headers=headers)
            response = upstream.getresponse()
            self.send_response(response.status, response.reason)
            for key, value in response.getheaders():
                if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                    self.send_header(key, value)
            if self.command == "HEAD":
                self.send_header("Content-Length", response.getheader("Content-Length") or "0")
                self.end_headers()
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            while True:
                chunk = response.read1(65536)
                if not chunk:
                    break
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (OSError, http.client.HTTPException):
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.send_error(502, "engine unreachable")
        finally:
            upstream.close()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = _forward

    def log_message(self, format: str, *args: object) -> None:
        return  # vLLM logs the requests it serves


def serve(listen: int, upstream: str, host: str = "0.0.0.0") -> ThreadingHTTPServer:
    upstream_host, _, upstream_port = upstream.rpartition(":")
    handler = type("BoundProxy", (Proxy,), {"upstream": (upstream_host, int(upstream_port))})
    return ThreadingHTTPServer((host, listen), handler)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="host:port of the engine")
    args = parser.parse_args(argv)
    server = serve(args.listen, args.upstream)
    print(f"v1_proxy: :{args.listen} -> {args.upstream} ({ALLOWED_PREFIX}*, {', '.join(ALLOWED_EXACT)})", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
