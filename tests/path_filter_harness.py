"""The real nginx (Debian's, installed by `make test`) with a rendered path-filter config before a recording engine.

`Engine` stands in for vLLM on 127.0.0.1: it records every request that reaches it (method,
path, headers, body: chunked bodies decoded) and answers `/v1/stream` with a chunked,
server-sent-event style response, everything else with JSON and a Content-Length.
`running_filter` starts nginx with `core.serving.path_filter.nginx_config` on a free port
and stops it afterwards; both bind to 127.0.0.1 only.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO

import pytest

from fastload_constructs.core.serving.path_filter import CONFIG_FILE, PathFilter, nginx_config

STREAM_CHUNKS = 5


def nginx_binary() -> str:
    """The nginx binary, or a skip (a fail on CI, where `make test` installs it) naming how to get it."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)
    if found:
        return found
    reason = "nginx is not installed: `apt-get install nginx` (make test installs Debian's package)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Engine:
    """A stand-in engine on 127.0.0.1 recording what reaches it; `delay_s` per request."""

    delay_s: float = 0.0
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handler(self) -> type[BaseHTTPRequestHandler]:
        engine = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    body = _chunked_body(self.rfile)
                else:
                    body = _sized_body(self.rfile, int(self.headers.get("Content-Length") or 0))
                with engine.lock:
                    engine.seen.append(Seen(self.command, self.path, dict(self.headers.items()), body))
                if engine.delay_s:
                    time.sleep(engine.delay_s)
                if self.path == "/v1/stream":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    _write_stream(self.wfile)
                    return
                reply = json.dumps({"path": self.path, "received": len(body)}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler

    def paths(self) -> list[str]:
        with self.lock:
            return [s.path for s in self.seen]


def _chunked_body(rfile: BinaryIO) -> bytes:
    """A chunked request body, its trailer read and dropped."""
    parts = []
    while True:
        size = int(rfile.readline().split(b";")[0].strip(), 16)
        if size == 0:
            while rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(parts)
        parts.append(rfile.read(size))
        rfile.readline()


def _sized_body(rfile: BinaryIO, length: int) -> bytes:
    """A body of `length` bytes; a large one is read and counted, not kept (the test checks the size and a digest
    of the start)."""
    if length <= 1 << 20:
        return rfile.read(length)
    left, head = length, rfile.read(1 << 16)
    left -= len(head)
    while left > 0:
        left -= len(rfile.read(min(left, 1 << 20)))
    return head + b"..." + str(length).encode()


def _write_stream(wfile: BinaryIO) -> None:
    """`STREAM_CHUNKS` server-sent events as chunks, then the last chunk."""
    for i in range(STREAM_CHUNKS):
        data = f"data: {i}\n\n".encode()
        wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        wfile.flush()
    wfile.write(b"0\r\n\r\n")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Running:
    port: int
    engine: Engine
    process: subprocess.Popen[bytes]

    def worker_rss_kib(self) -> int:
        """Resident memory of nginx's master and workers together (/proc/<pid>/status VmRSS)."""
        pids = [self.process.pid]
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
        total = 0
        for pid in pids:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        return total


@contextlib.contextmanager
def running_filter(engine: Engine, **settings: int) -> Iterator[Running]:
    """nginx with the rendered config on 127.0.0.1:<free port>, forwarding to `engine` on another."""
    binary = nginx_binary()
    server = ThreadingHTTPServer(("127.0.0.1", 0), engine.handler())
    server.request_queue_size = 1024
    server.daemon_threads = True
    # ThreadingHTTPServer listens in its constructor: listen again with the larger queue.
    server.socket.listen(1024)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with tempfile.TemporaryDirectory(prefix="path-filter-") as tmp:
        # Workers run as `nobody` when the tests run as root: they write under the state directory.
        os.chmod(tmp, 0o777)
        port = free_port()
        config = PathFilter(
            listen_port=port, upstream_port=server.server_address[1], listen_address="127.0.0.1", state_dir=tmp
        )
        config = replace(config, **settings)
        conf = Path(tmp) / CONFIG_FILE
        conf.write_text(nginx_config(config))
        process = subprocess.Popen(
            [binary, "-e", "stderr", "-p", tmp, "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            _wait_listening(port, process)
            yield Running(port, engine, process)
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            server.shutdown()
            server.server_close()


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"nginx exited {process.returncode}: {process.stderr.read().decode()}")  # type: ignore[union-attr]
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise AssertionError("nginx did not listen within 10 s")


def exchange(port: int, raw: bytes, *, timeout: float = 5.0) -> bytes:
    """Send `raw` on a fresh connection, read until the server closes it (or `timeout`).

    The write side stays open: nginx takes a client's EOF as an abort (499) and drops the request."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        chunks = []
        with contextlib.suppress(TimeoutError, ConnectionResetError):
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks)


def statuses(response: bytes) -> list[int]:
    """The status code of every response in `response` (a pipelined reply holds several, each right after the
    previous body). Our engine's and nginx's bodies never contain a status line themselves."""
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] (\d{3}) ", response)]
