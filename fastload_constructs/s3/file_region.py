"""A byte range of a local file as a seekable, read-only stream: the body of one upload part.

A part sent from its file instead of from memory holds no buffer while it waits
for, or goes through, its request: sixteen 64 MiB parts in flight would
otherwise be 1 GiB of freshly faulted memory, whose page faults cost this
upload more CPU than the SHA-256 did (274k faults and 1.1-1.5 s of kernel time
per GiB, against 26k faults sent from the file). botocore reads
the body once for the part's CRC32 and once to send it, seeking back between,
and again on a retry; every read is a positioned `pread` on the descriptor the
file was hashed through, so threads never share a file offset and the bytes
sent are those hashed even if the path is replaced meanwhile.
"""

from __future__ import annotations

import io
import os


class FileRegion(io.RawIOBase):
    """`length` bytes from `offset` of the open file `fd`, read with `os.pread`.

    The descriptor is borrowed: the caller keeps it open until the region is closed, and closes it.
    """

    def __init__(self, fd: int, offset: int, length: int) -> None:
        super().__init__()
        self._fd, self._offset, self._length, self._pos = fd, offset, length, 0

    def __len__(self) -> int:
        """The part's size: botocore reads it for Content-Length."""
        return self._length

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, pos: int, whence: int = os.SEEK_SET) -> int:
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._pos, os.SEEK_END: self._length}[whence]
        self._pos = min(max(0, base + pos), self._length)
        return self._pos

    def read(self, size: int | None = -1) -> bytes:
        left = self._length - self._pos
        want = left if size is None or size < 0 else min(size, left)
        if want <= 0:
            return b""
        data = os.pread(self._fd, want, self._offset + self._pos)
        self._pos += len(data)
        return data

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)
