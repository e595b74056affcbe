"""The path filter in front of a standby engine: nginx, forwarding only the OpenAI API and a few read-only paths.

Why a filter: FMA's launcher runs vLLM with `VLLM_SERVER_DEV_MODE=1`, which serves
`/sleep`, `/wake_up`, `/collective_rpc`, `/reset_prefix_cache` (and `/checkpoint/*`) on
the serving port, and `--api-key` guards none of them. Clients reach the engine only
through this filter; a NetworkPolicy admits only FMA's controller to the engine port.

Why nginx (the official image, pinned): a proxy whose HTTP/1 parser has been attacked
for twenty years does the framing. nginx answers 400 to a request with two
Content-Length lines (ngx_http_request.c, ngx_http_process_unique_header_line, since
0.1.36) and to one with both Content-Length and Transfer-Encoding (since 1.21.1,
https://nginx.org/en/CHANGES-1.22), forwards chunked bodies, answers an HTTP/1.0 client
without chunked encoding, refuses a body over `client_max_body_size` with 413, and times
idle connections out. Envoy would do as well, but it answers HTTP/1.0 with 426 unless
told otherwise and no package of it can run in CI; nginx can (Debian's).

The URI is normalised before `location` matching (`.`/`..` resolved, `%XX` decoded,
slashes merged), but `proxy_pass` without a URI part forwards the request line as sent,
so a request whose path carries `%`, a backslash, `//` or a `.`/`..` segment is refused
outright: the engine then routes exactly the path that was checked.

Pure: `nginx_config` renders the file; `k8s/standby.py` mounts it into the sidecar.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.errors import require, whole_number_in

# nginx stable 1.30.4 (https://github.com/nginx/nginx/releases/tag/release-1.30.4, in core/data/releases.json);
# the official image (docker-library) tags each release `<version>-alpine`.
NGINX_VERSION = "1.30.4"
NGINX_IMAGE = f"nginx:{NGINX_VERSION}-alpine"
# The unprivileged user of the official image (`nginx`, uid/gid 101: docker-library/nginx Dockerfile.alpine).
NGINX_UID = 101
CONFIG_FILE = "nginx.conf"
# Everything nginx writes (pid, request and proxy temp files) goes under one emptyDir: the root stays read-only.
STATE_DIR = "/tmp/nginx"
ALLOWED_PREFIX = "/v1/"
ALLOWED_EXACT = ("/health", "/metrics", "/version", "/ping")
# A request path nginx would normalise differently from how it forwards it: refused (see the module docstring).
# `\x5c` is a backslash: nginx's quoted strings would eat a `\\`.
_UNSAFE_PATH = r"^[^?]*(%|\x5c|//|/\.\.?(/|\?|$))"


@dataclass(frozen=True)
class PathFilter:
    """What the filter listens on and forwards to, and its limits.

    `max_body_mib`: larger request bodies get 413 (a chat request with a few images base64-encoded fits in
    32 MiB; bodies are streamed to the engine, never held whole). `backlog`: pending connections the socket
    queues (Linux caps it at net.core.somaxconn, 4096 since kernel 5.4). `idle_timeout_s`: a kept-alive
    connection with no new request is closed after it; `header_timeout_s` bounds a slow request head.
    `response_timeout_s`: the longest gap between two pieces of a response (a long generation streams).
    """

    listen_port: int
    upstream_port: int
    listen_address: str = ""  # all addresses; tests pass 127.0.0.1
    max_body_mib: int = 32
    backlog: int = 4096
    worker_processes: int = 2
    worker_connections: int = 4096
    idle_timeout_s: int = 60
    header_timeout_s: int = 10
    body_timeout_s: int = 60
    response_timeout_s: int = 3600
    state_dir: str = STATE_DIR

    def __post_init__(self) -> None:
        whole_number_in(self.listen_port, "listen_port", 1, 65535)
        whole_number_in(self.upstream_port, "upstream_port", 1, 65535)
        require(self.listen_port != self.upstream_port, "listen_port", self.listen_port, "another port than upstream")
        whole_number_in(self.max_body_mib, "max_body_mib", 1, 1024)
        whole_number_in(self.backlog, "backlog", 16, 65535)
        whole_number_in(self.worker_processes, "worker_processes", 1, 16)
        whole_number_in(self.worker_connections, "worker_connections", 64, 65535)
        for name in ("idle_timeout_s", "header_timeout_s", "body_timeout_s", "response_timeout_s"):
            whole_number_in(getattr(self, name), name, 1, 86400)
        require(
            self.state_dir.startswith("/") and not any(c in self.state_dir for c in " ;'\"{}"),
            "state_dir",
            self.state_dir,
            "an absolute path without spaces, quotes, braces or ';'",
        )


def _proxied(path: str, *, exact: bool) -> str:
    match = f"= {path}" if exact else f"^~ {path}"
    return f"        location {match} {{\n            proxy_pass http://engine;\n        }}\n"


def nginx_config(f: PathFilter) -> str:
    """nginx.conf for `f`: only /v1/* and the exact read-only paths reach 127.0.0.1:<upstream>; the rest gets 404."""
    listen = f"{f.listen_address}:{f.listen_port}" if f.listen_address else str(f.listen_port)
    state = f.state_dir
    locations = _proxied(ALLOWED_PREFIX, exact=False) + "".join(_proxied(p, exact=True) for p in ALLOWED_EXACT)
    return f"""# Rendered by fastload_constructs.core.serving.path_filter: only {ALLOWED_PREFIX}* and \
{", ".join(ALLOWED_EXACT)} reach the engine.
worker_processes {f.worker_processes};
pid {state}/nginx.pid;
error_log stderr warn;

events {{
    worker_connections {f.worker_connections};
}}

http {{
    access_log off;
    server_tokens off;
    client_body_temp_path {state}/client_body;
    proxy_temp_path {state}/proxy;
    fastcgi_temp_path {state}/fastcgi;
    uwsgi_temp_path {state}/uwsgi;
    scgi_temp_path {state}/scgi;

    client_max_body_size {f.max_body_mib}m;
    client_body_buffer_size 64k;
    client_header_timeout {f.header_timeout_s}s;
    client_body_timeout {f.body_timeout_s}s;
    keepalive_timeout {f.idle_timeout_s}s;
    send_timeout {f.response_timeout_s}s;
    reset_timedout_connection on;

    upstream engine {{
        server 127.0.0.1:{f.upstream_port};
        keepalive 64;
    }}

    # HTTP/1.1 to the engine (nginx before 1.29.7 defaults to 1.0): kept-alive connections, and request bodies
    # streamed as they arrive, chunked ones included, instead of spooled first.
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_request_buffering off;
    # Server-sent events ("stream": true) pass as the engine writes them.
    proxy_buffering off;
    proxy_connect_timeout 5s;
    proxy_send_timeout {f.body_timeout_s}s;
    proxy_read_timeout {f.response_timeout_s}s;

    server {{
        listen {listen} backlog={f.backlog};

        if ($request_uri ~ "{_UNSAFE_PATH}") {{
            return 404;
        }}

{locations}
        # Without it nginx redirects /v1 to /v1/ (a prefix location ending in '/' with proxy_pass).
        location = {ALLOWED_PREFIX.rstrip("/")} {{
            return 404;
        }}

        location / {{
            return 404;
        }}
    }}
}}
"""
