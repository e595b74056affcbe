"""FileRegion: one byte range of a file, read as botocore reads an upload part (length, read, seek back)."""

from __future__ import annotations

import os
import threading

from fastload_constructs.s3.file_region import FileRegion


def test_a_region_reads_its_range_only_and_seeks_back(tmp_path):
    data = os.urandom(10_000)
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    with FileRegion(fd, 1_000, 3_000) as region:
        assert len(region) == 3_000
        assert region.read(100) == data[1_000:1_100] and region.tell() == 100
        assert region.read() == data[1_100:4_000] and region.read(10) == b""  # stops at its end, not the file's
        region.seek(0)
        chunks = iter(lambda: region.read(1024), b"")
        assert b"".join(chunks) == data[1_000:4_000]
        assert region.seek(-10, os.SEEK_END) == 2_990 and region.read() == data[3_990:4_000]
        assert region.seek(50_000) == 3_000 and region.read() == b""  # clamped
        buffer = bytearray(8)
        region.seek(4)
        assert region.readinto(buffer) == 8 and bytes(buffer) == data[1_004:1_012]
    assert region.closed
    assert os.pread(fd, 4, 0) == data[:4]  # the descriptor is borrowed: still open for its owner
    os.close(fd)


def test_regions_of_one_file_read_independently_from_threads(tmp_path):
    data = os.urandom(1 << 20)
    path = tmp_path / "f"
    path.write_bytes(data)
    results: dict[int, bytes] = {}
    fd = os.open(path, os.O_RDONLY)

    def read(i: int) -> None:  # one descriptor, sixteen readers: pread keeps no shared offset
        with FileRegion(fd, i * 65_536, 65_536) as region:
            results[i] = b"".join(iter(lambda: region.read(4096), b""))

    threads = [threading.Thread(target=read, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    os.close(fd)
    assert b"".join(results[i] for i in range(16)) == data
