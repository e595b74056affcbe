"""A TCP proxy on 127.0.0.1 in front of a local S3 server that breaks or slows response bodies on purpose.

Each connection is pumped both ways by two threads. A response is what the server sends
after the client's last request bytes; once a response has passed `cut_after` bytes and
cuts remain, the proxy resets the client's connection (SO_LINGER 0: an RST, what a dropped
connection looks like to the reader); once it has passed `trickle_after` bytes, the rest
goes in `trickle_bytes` pieces, `trickle_delay_s` apart. Small responses (headers, HEAD,
errors) stay under the thresholds and pass untouched.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from typing import Any


class FaultProxy:
    def __init__(self, upstream_port: int) -> None:
        self.upstream = ("127.0.0.1", upstream_port)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.cuts_left = 0
        self.cut_after: int | None = None
        self.trickle_after: int | None = None
        self.trickle_bytes = 1024
        self.trickle_delay_s = 0.05
        self.cuts_made = 0
        self.drop_marker: bytes | None = None
        self.drops_left = 0
        self.drops_made = 0
        self.trickled_bytes = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def cut(self, *, after: int, times: int) -> None:
        with self._lock:
            self.cut_after, self.cuts_left = after, times

    def drop_reply_to(self, marker: bytes, *, times: int = 1) -> None:
        """Let a request whose first bytes hold `marker` reach the server, then reset before its reply."""
        with self._lock:
            self.drop_marker, self.drops_left = marker, times

    def trickle(self, *, after: int, piece: int = 1024, delay_s: float = 0.05) -> None:
        self.trickle_after, self.trickle_bytes, self.trickle_delay_s = after, piece, delay_s

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            state: dict[str, Any] = {"response": 0}
            threading.Thread(target=self._requests, args=(client, server, state), daemon=True).start()
            threading.Thread(target=self._responses, args=(server, client, state), daemon=True).start()

    def _requests(self, client: socket.socket, server: socket.socket, state: dict[str, Any]) -> None:
        try:
            tail = b""
            while data := client.recv(65536):
                state["response"] = 0  # a new request: what comes back next is a new response
                with self._lock:
                    # The marker may straddle two reads (a request line split over TCP segments on a busy
                    # machine): look at the end of the previous read too.
                    seen = tail + data[:4096]
                    if self.drop_marker is not None and self.drops_left > 0 and self.drop_marker in seen:
                        self.drops_left -= 1
                        state["drop"] = True
                    tail = data[-len(self.drop_marker) :] if self.drop_marker else b""
                server.sendall(data)
        except OSError:
            pass
        finally:
            _close(server)

    def _responses(self, server: socket.socket, client: socket.socket, state: dict[str, Any]) -> None:
        try:
            while data := server.recv(65536):
                data = self._forward_interim(data, client, state)
                interim = data.startswith(b"HTTP/1.1 100 ")  # "100 Continue": the body is still to come
                if not interim and state.pop("drop", False):  # the server acted on it; its reply is lost
                    self.drops_made += 1
                    _reset(client)
                    _close(server)
                    return
                seen = state["response"]
                state["response"] = seen + len(data)
                with self._lock:
                    cut = self.cut_after is not None and self.cuts_left > 0 and seen + len(data) > self.cut_after
                    if cut:
                        self.cuts_left -= 1
                        self.cuts_made += 1
                if cut:
                    assert self.cut_after is not None
                    client.sendall(data[: max(0, self.cut_after - seen)])
                    _reset(client)
                    _close(server)
                    return
                if self.trickle_after is not None and seen + len(data) > self.trickle_after:
                    head = max(0, self.trickle_after - seen)
                    client.sendall(data[:head])
                    for start in range(head, len(data), self.trickle_bytes):
                        if self._stop.wait(self.trickle_delay_s):
                            return
                        client.sendall(data[start : start + self.trickle_bytes])
                        self.trickled_bytes += len(data[start : start + self.trickle_bytes])
                    continue
                client.sendall(data)
        except OSError:
            pass
        finally:
            _close(client)

    @staticmethod
    def _forward_interim(data: bytes, client: socket.socket, state: dict[str, Any]) -> bytes:
        """On a busy machine "100 Continue" and the final reply can arrive in one read: pass the interim
        reply on and return the rest, so a reply to drop is still dropped."""
        if not (state.get("drop") and data.startswith(b"HTTP/1.1 100 ")):
            return data
        end = data.find(b"\r\n\r\n") + 4
        if 4 <= end < len(data):
            client.sendall(data[:end])
            return data[end:]
        return data

    def close(self) -> None:
        self._stop.set()
        _close(self.listener)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


def _reset(sock: socket.socket) -> None:
    """Abort the connection with an RST: linger 0, wake the thread reading it (SHUT_RD sends nothing), close."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    sock.close()
