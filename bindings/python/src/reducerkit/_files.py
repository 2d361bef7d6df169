"""Reading the files the tools and runners are given: regular files only."""

from __future__ import annotations

import errno
import os
import stat

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file at ``path``, or of the file a link there names.

    Anything else raises ``OSError`` (``EINVAL``, ``strerror`` "not a regular file (a FIFO)")
    before a byte is read: a FIFO would block without a writer, ``/dev/zero`` would never end.
    The file is opened without blocking, so a FIFO is refused at once."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "an unknown kind of file")
            raise OSError(errno.EINVAL, f"not a regular file ({kind})", os.fspath(path))
        chunks: list[bytes] = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
