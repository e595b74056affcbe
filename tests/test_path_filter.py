"""Request smuggling and abuse against the REAL path filter: nginx with the rendered config, on 127.0.0.1.

What reaches the stand-in engine is recorded, so every test asserts on both sides: the
client's answer and what the engine was asked to run. The payloads follow the classic
desync classes (duplicate Content-Length, CL.TE, TE obfuscation; PortSwigger's "HTTP request
smuggling" and defparam/smuggler's mutation lists) and the path tricks a filter in front of a
router must not let through.
"""

from __future__ import annotations

import socket
import statistics
import threading
import time

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.path_filter import ALLOWED_EXACT, PathFilter, nginx_config
from tests.path_filter_harness import STREAM_CHUNKS, Engine, exchange, running_filter, statuses

SMUGGLED = b"POST /sleep?level=1 HTTP/1.1\r\nHost: engine\r\nContent-Length: 0\r\n\r\n"
RPC = b'{"method": "sleep"}'
RPC_CALL = b"POST /collective_rpc HTTP/1.1\r\nHost: e\r\nContent-Length: %d\r\n\r\n%s" % (len(RPC), RPC)


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


@pytest.fixture(scope="module")
def proxy(engine):
    with running_filter(engine) as running:
        yield running


@pytest.fixture(autouse=True)
def _fresh(engine):
    engine.seen.clear()
    engine.delay_s = 0.0


def _post(path: bytes, headers: bytes, body: bytes, version: bytes = b"HTTP/1.1") -> bytes:
    return b"POST " + path + b" " + version + b"\r\nHost: filter\r\n" + headers + b"\r\n" + body


@pytest.mark.parametrize(
    "request_bytes",
    [
        # Two Content-Length lines: a front end taking the first (0) leaves the rest as a second request.
        _post(b"/v1/completions", b"Content-Length: 0\r\nContent-Length: %d\r\n" % len(SMUGGLED), SMUGGLED),
        _post(b"/v1/completions", b"Content-Length: %d\r\nContent-Length: 0\r\n" % len(SMUGGLED), SMUGGLED),
        # Equal values are refused too: a second line of either framing header is never accepted.
        _post(b"/v1/completions", b"Content-Length: %d\r\nContent-Length: %d\r\n" % ((len(SMUGGLED),) * 2), SMUGGLED),
        _post(b"/v1/chat/completions", b"Content-Length: 0\r\nContent-Length: %d\r\n" % len(RPC_CALL), RPC_CALL),
        # CL.TE and TE.CL: both framing headers at once.
        _post(b"/v1/completions", b"Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n" + SMUGGLED),
        _post(b"/v1/completions", b"Transfer-Encoding: chunked\r\nContent-Length: 60\r\n", b"0\r\n\r\n" + SMUGGLED),
        # TE obfuscation: another coding, a list, a doubled header.
        _post(b"/v1/completions", b"Transfer-Encoding: chunked, identity\r\n", b"0\r\n\r\n" + SMUGGLED),
        _post(b"/v1/completions", b"Transfer-Encoding: xchunked\r\n", b"0\r\n\r\n" + SMUGGLED),
        _post(b"/v1/completions", b"Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n", b"0\r\n\r\n"),
        # HTTP/1.0 with a Transfer-Encoding (refused since nginx 1.21.2).
        _post(b"/v1/completions", b"Transfer-Encoding: chunked\r\n", b"0\r\n\r\n" + SMUGGLED, b"HTTP/1.0"),
    ],
    ids=[
        "cl0-then-cl",
        "cl-then-cl0",
        "cl-equal-twice",
        "collective-rpc",
        "cl-te",
        "te-cl",
        "te-list",
        "te-xchunked",
        "te-twice",
        "http10-te",
    ],
)
def test_ambiguous_framing_is_refused_and_reaches_nothing(proxy, engine, request_bytes):
    reply = exchange(proxy.port, request_bytes)
    codes = statuses(reply)
    assert codes and codes[0] in (400, 501), reply[:200]
    assert engine.paths() == [], "a request with ambiguous framing reached the engine"
    assert all(code != 200 for code in codes), "no second response: the smuggled request never ran"


@pytest.mark.parametrize(
    "target",
    [
        "/sleep?level=1",
        "/wake_up",
        "/collective_rpc",
        "/reset_prefix_cache",
        "/checkpoint/save",
        "/v1/../sleep",
        "/v1/%2e%2e/sleep",
        "/v1/..%2fsleep",
        "/v1/%2E%2E/collective_rpc",
        "//sleep",
        "//v1/models",
        "/v1//models",
        "/v1/./models",
        "/V1/models",
        "/v1",
        "/healthz",
        "/health/",
        "/sleep/..%2fv1/models",
        "/v1/models%00",
    ],
)
def test_only_v1_and_the_exact_paths_pass(proxy, engine, target):
    reply = exchange(proxy.port, f"GET {target} HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n".encode())
    assert statuses(reply)[0] in (400, 404), reply[:200]
    assert engine.paths() == []


@pytest.mark.parametrize("target", ["/v1/models", "/v1/chat/completions?x=1", *ALLOWED_EXACT])
def test_allowed_paths_reach_the_engine_as_sent(proxy, engine, target):
    reply = exchange(proxy.port, f"GET {target} HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n".encode())
    assert statuses(reply) == [200]
    assert engine.paths() == [target]


def test_pipelined_requests_each_filtered(proxy, engine):
    pipelined = (
        b"GET /v1/models HTTP/1.1\r\nHost: f\r\n\r\n"
        b"POST /sleep HTTP/1.1\r\nHost: f\r\nContent-Length: 0\r\n\r\n"
        b"GET /health HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n"
    )
    assert statuses(exchange(proxy.port, pipelined)) == [200, 404, 200]
    assert engine.paths() == ["/v1/models", "/health"]


def test_chunked_request_bodies_are_forwarded_intact(proxy, engine):
    parts = [b'{"model": "m", ', b'"prompt": "' + b"x" * 70000 + b'"', b"}"]
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"
    follow = b"GET /v1/models HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n"
    reply = exchange(proxy.port, _post(b"/v1/completions", b"Transfer-Encoding: chunked\r\n", chunked) + follow)
    assert statuses(reply) == [200, 200], "the connection stays in sync after a chunked body"
    (first, second) = engine.seen
    assert first.path == "/v1/completions" and first.body == b"".join(parts)
    assert second.path == "/v1/models"


def test_http10_clients_get_no_chunked_encoding(proxy, engine):
    reply = exchange(proxy.port, b"GET /v1/stream HTTP/1.0\r\nHost: f\r\n\r\n")
    head, _, body = reply.partition(b"\r\n\r\n")
    assert statuses(reply) == [200]
    assert b"transfer-encoding" not in head.lower()
    assert body == b"".join(f"data: {i}\n\n".encode() for i in range(STREAM_CHUNKS))
    # An HTTP/1.1 client gets the stream chunked, as the engine sent it.
    reply = exchange(proxy.port, b"GET /v1/stream HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n")
    assert b"transfer-encoding: chunked" in reply.partition(b"\r\n\r\n")[0].lower()


def _send_body(port: int, size: int, *, chunked: bool) -> bytes:
    """POST `size` bytes of body in 1 MiB pieces, then read the reply (the server may answer and close early)."""
    header = b"Transfer-Encoding: chunked\r\n" if chunked else b"Content-Length: %d\r\n" % size
    piece = b"a" * (1 << 20)
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(_post(b"/v1/completions", header + b"Connection: close\r\n", b""))
        sent = 0
        try:
            while sent < size:
                n = min(len(piece), size - sent)
                s.sendall(b"%x\r\n%s\r\n" % (n, piece[:n]) if chunked else piece[:n])
                sent += n
            if chunked:
                s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before the end: what a body over the limit should get
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except ConnectionResetError:
            pass
        return b"".join(chunks)


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_over_the_limit_is_refused_without_the_proxy_growing(engine, chunked):
    with running_filter(engine, max_body_mib=4) as proxy:
        before = proxy.worker_rss_kib()
        reply = _send_body(proxy.port, 96 << 20, chunked=chunked)
        grown_mib = (proxy.worker_rss_kib() - before) / 1024
    assert statuses(reply)[:1] == [413]
    assert grown_mib < 16, f"nginx grew by {grown_mib:.0f} MiB receiving a 96 MiB body over a 4 MiB limit"
    assert not any(len(s.body) > 4 << 20 for s in engine.seen)


def test_a_large_body_within_the_limit_is_streamed_not_held(engine):
    with running_filter(engine, max_body_mib=256) as proxy:
        before = proxy.worker_rss_kib()
        reply = _send_body(proxy.port, 200 << 20, chunked=False)
        grown_mib = (proxy.worker_rss_kib() - before) / 1024
    assert statuses(reply) == [200]
    assert engine.seen[-1].body.endswith(b"..." + str(200 << 20).encode())
    assert grown_mib < 16, f"nginx grew by {grown_mib:.0f} MiB passing a 200 MiB body"


def _latencies(port: int, clients: int) -> list[float]:
    """`clients` connections opened at once, each one GET; seconds each took (inf on failure)."""
    results = [float("inf")] * clients
    start = threading.Barrier(clients)

    def one(i: int) -> None:
        start.wait()
        t0 = time.monotonic()
        try:
            reply = exchange(port, b"GET /v1/models HTTP/1.1\r\nHost: f\r\nConnection: close\r\n\r\n", timeout=10)
            if statuses(reply) == [200]:
                results[i] = time.monotonic() - t0
        except OSError:
            pass

    threads = [threading.Thread(target=one, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return results


@pytest.mark.parametrize("clients", [50, 200])
def test_simultaneous_clients_are_not_queued_behind_a_tiny_backlog(proxy, engine, clients):
    """The hand-written filter's backlog of 5 made 50 clients wait a median 1.25 s (20% of 200 timed out)."""
    engine.delay_s = 0.05
    latencies = _latencies(proxy.port, clients)
    assert all(t < 10 for t in latencies), f"{sum(t == float('inf') for t in latencies)} of {clients} failed"
    assert statistics.median(latencies) < 1.0, f"median {statistics.median(latencies):.2f} s"
    assert len(engine.paths()) == clients


def test_idle_connections_are_timed_out(engine):
    with running_filter(engine, idle_timeout_s=1, header_timeout_s=1) as proxy:
        # A connection that never sends a request.
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
            t0 = time.monotonic()
            assert s.recv(1024) == b""  # closed without a word
            assert 0.5 < time.monotonic() - t0 < 5
        # A kept-alive connection after one request.
        with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
            s.sendall(b"GET /v1/models HTTP/1.1\r\nHost: f\r\n\r\n")
            time.sleep(0.2)
            assert statuses(s.recv(65536)) == [200]
            t0 = time.monotonic()
            assert s.recv(1024) == b""
            assert 0.5 < time.monotonic() - t0 < 5


def test_the_config_refuses_bad_settings_in_one_line():
    with pytest.raises(FastloadConfigError, match="listen_port"):
        PathFilter(listen_port=8000, upstream_port=8000)
    with pytest.raises(FastloadConfigError, match="state_dir"):
        PathFilter(listen_port=8100, upstream_port=8000, state_dir="/tmp/x; evil")
    text = nginx_config(PathFilter(listen_port=8100, upstream_port=8000))
    assert "listen 8100 backlog=4096;" in text and "server 127.0.0.1:8000;" in text
    assert "proxy_http_version 1.1;" in text and "proxy_request_buffering off;" in text
