"""Decompression bombs of the formats pandas reads, built small on disk in a test's folder:
a Parquet file of millions of run-length encoded rows, a tar of a sparse CSV."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest


def parquet_bomb(path: Path, row_groups: int = 40, columns: int = 4) -> Path:
    """``row_groups`` million rows of zeros in ``columns`` integer columns: under a megabyte on
    disk (run-length encoded), gigabytes once read."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    chunk = pa.table({f"c{i}": np.zeros(1_000_000, dtype="int64") for i in range(columns)})
    with pq.ParquetWriter(path, chunk.schema, compression="zstd") as writer:
        for _ in range(row_groups):
            writer.write_table(chunk, row_group_size=1_000_000)
    return path


def sparse_tar_bomb(folder: Path, gigabytes: int = 4) -> Path:
    """A tar archive (GNU sparse format, about 10 KB) of a CSV of ``gigabytes`` GB, almost all of
    it a hole of zero bytes; skips the test where no ``tar`` command can write one."""
    if shutil.which("tar") is None:
        pytest.skip("no tar command to write a sparse archive")
    table = folder / "t.csv"
    table.write_bytes(b"a,b\n1,2\n")
    with open(table, "r+b") as fh:
        fh.truncate(gigabytes * 2**30)
    subprocess.run(["tar", "-S", "-cf", "bomb.tar", "t.csv"], cwd=folder, check=True)
    table.unlink()
    return folder / "bomb.tar"
