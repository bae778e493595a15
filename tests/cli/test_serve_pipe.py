"""``pi-lsp serve`` on stdio widens a pipe on stdin (fewer wake-ups for a 40 MB message)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pi_lsp.cli.commands.serve import PIPE_SIZE, _widen_pipe

fcntl = pytest.importorskip("fcntl")
GETSIZE = getattr(fcntl, "F_GETPIPE_SZ", None)


@pytest.mark.skipif(GETSIZE is None or not sys.platform.startswith("linux"), reason="Linux pipes")
def test_a_pipe_on_stdin_holds_a_mebibyte(tmp_path: Path) -> None:
    limit = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    read, write = os.pipe()
    try:
        before = fcntl.fcntl(read, GETSIZE)
        _widen_pipe(read)
        after = fcntl.fcntl(read, GETSIZE)
        # without the privilege to pass the system's limit, a larger ask is refused
        expected = PIPE_SIZE if limit >= PIPE_SIZE or os.geteuid() == 0 else before
        assert after == expected
    finally:
        os.close(read)
        os.close(write)
    # a file is left alone, without an error
    with (tmp_path / "f").open("w") as f:
        _widen_pipe(f.fileno())
