"""Hostile inputs that could take unbounded time or memory: each is refused with one
line and exit status 2, in a subprocess whose address space is capped (``RLIMIT_AS``), so a
refusal that reads too much fails with a memory error instead of passing slowly.

No assertion depends on timing: the ``timeout`` of each subprocess only guards against a hang.
The Dask cases start their own servers on the loopback that are not Dask schedulers.
"""

from __future__ import annotations

import gzip
import http.server
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from input_bombs import parquet_bomb, sparse_tar_bomb

from privlib.audit.checks import EXPANSION_FLOOR_MB, check_input_size
from privlib.cli import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from privlib.errors import PrivlibError

# an end-to-end audit, a cluster, a site or many draws: `make unit` leaves it out (`make test` runs it)
pytestmark = pytest.mark.slow

#: The memory the issue allows a refusal (1.5 GB): the whole process, imports included.
MEMORY_CAP = int(1.5 * 2**30)

#: Seconds after which a run counts as hung (far above what any case needs).
HANG_GUARD = 120


def _capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def _privlib(*argv: str, cwd: Path) -> subprocess.Popen:
    """``privlib`` in a subprocess under the memory cap, its stderr captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "privlib", *argv],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_capped,
        env=os.environ | {"MPLBACKEND": "Agg"},
    )


def _finished(process: subprocess.Popen) -> tuple[int, list[str]]:
    try:
        _, err = process.communicate(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"privlib still ran after {HANG_GUARD} s")
    lines = err.strip().splitlines()
    # the one progress line said before the checks is not part of a refusal's one line
    if lines and lines[0].startswith("privlib: reading and checking the tables"):
        lines = lines[1:]
    return process.returncode, lines


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("tables")
    rng = np.random.default_rng(35)
    frame = pd.DataFrame(
        {"age": rng.integers(18, 90, 200), "sex": rng.choice(["F", "M"], 200), "pay": rng.normal(size=200)}
    )
    paths = {"train": folder / "train.csv", "synthetic": folder / "synthetic.csv"}
    frame.iloc[:100].to_csv(paths["train"], index=False)
    frame.iloc[100:].to_csv(paths["synthetic"], index=False)
    return paths


def _audit(tables, out: Path, *extra: str) -> subprocess.Popen:
    return _privlib(
        "audit",
        "--train",
        str(tables["train"]),
        "--synthetic",
        str(tables["synthetic"]),
        *extra,
        "--out",
        str(out),
        cwd=out.parent,
    )


def _one_refusal(status: int, err: list[str], *words: str) -> None:
    assert status == EXIT_BAD_INPUT and len(err) == 1, (status, err)
    assert err[0].startswith("privlib: error: ") and "privlib: privlib:" not in err[0], err
    for word in words:
        assert word in err[0], (word, err)


# --------------------------------------------------------------------------------------------
# Dask: a server that is not a scheduler is refused within the handshake deadline
# --------------------------------------------------------------------------------------------
class _SilentServer:
    """A TCP server on the loopback that accepts connections and never says anything."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.accepted = threading.Event()
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.socket.accept()
            except OSError:  # closed
                return
            self.connections.append(connection)
            self.accepted.set()

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        self.socket.close()


@pytest.fixture
def silent_server():
    server = _SilentServer()
    yield server
    server.close()


@pytest.fixture
def http_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_real_scheduler_passes_the_handshake():
    distributed = pytest.importorskip("distributed")
    from privlib.pipeline.execution import _require_dask

    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp", dashboard_address=None
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        assert _require_dask(cluster.scheduler_address) is None


@pytest.mark.parametrize("scheme", ["tcp://", ""])
def test_a_server_that_never_answers_is_no_dask_scheduler(scheme, silent_server, tables, tmp_path):
    pytest.importorskip("distributed")
    address = f"{scheme}127.0.0.1:{silent_server.port}"
    status, err = _finished(_audit(tables, tmp_path / "out", "--dask-scheduler", address))
    _one_refusal(status, err, repr(address), "not a Dask scheduler", "no answer")
    assert silent_server.accepted.is_set()  # the refusal came from the handshake, not the connection
    assert not (tmp_path / "out").exists()


def test_an_http_server_is_no_dask_scheduler(http_server, tables, tmp_path):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{http_server.server_address[1]}"
    status, err = _finished(_audit(tables, tmp_path / "out", "--dask-scheduler", address))
    _one_refusal(status, err, repr(address), "not a Dask scheduler")


@pytest.mark.parametrize("address", ["http://127.0.0.1:8786", "inproc://x", "tls://127.0.0.1:1", ""])
def test_a_bad_scheme_is_one_line_and_leaves_no_client_behind(address, tables, tmp_path):
    """No ``Client`` is made to time out after the refusal: no finaliser's traceback follows it."""
    pytest.importorskip("distributed")
    status, err = _finished(_audit(tables, tmp_path / "out", "--dask-scheduler", address))
    _one_refusal(status, err, repr(address), "tcp://HOST:PORT")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_waiting_for_the_scheduler_ends_the_run(signum, silent_server, tables, tmp_path):
    pytest.importorskip("distributed")
    run = _audit(tables, tmp_path / "out", "--dask-scheduler", f"tcp://127.0.0.1:{silent_server.port}")
    assert silent_server.accepted.wait(HANG_GUARD), "privlib never connected"
    run.send_signal(signum)
    status, err = _finished(run)
    assert status == EXIT_INTERRUPTED, (status, err)
    assert err == ["privlib: interrupted; the earlier report is intact"]


# --------------------------------------------------------------------------------------------
# Synthesizer parameters: bounded, checked before any table is made
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "entry, words",
    [
        ("{method: MST, params: {n_bins: 300000000}}", "`n_bins` must be a whole number >= 2 and <= 1000"),
        ("{method: MST, params: {n_bins: 1e27}}", "`n_bins` must be a whole number >= 2 and <= 1000"),
        (
            "{method: SequentialTrees, params: {min_samples_leaf: 0}}",
            "`min_samples_leaf` must be a whole number",
        ),
        (
            "{method: SequentialTrees, params: {min_samples_leaf: 100000000000000000000000000000}}",
            "`min_samples_leaf` must be a whole number >= 1 and <= 1000000000",
        ),
        ("{method: MST, params: {epsilon: 1.0e-300}}", "`epsilon` must be a number >= 0.0001"),
        ("{method: MST, params: {epsilon: 1.0e+300}}", "`epsilon` must be a number >= 0.0001"),
        ("{method: AdditiveNoise, params: {noise_scale: 1.0e+300}}", "`noise_scale` must be a number"),
        ("{method: ParzenWindows, params: {bandwidth: 1.0e+300}}", "`bandwidth` must be a number"),
        ("{method: OutlierCopies, params: {base: OutlierCopies}}", "`base` must be one of"),
    ],
)
def test_synthesizer_parameters_are_refused_before_any_table(entry, words, tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text(f"dataset: ce\nn_train: 100\nsynthesizers: [{entry}]\n")
    status, err = _finished(
        _privlib("audit", "--params", str(params), "--out", str(tmp_path / "out"), cwd=tmp_path)
    )
    _one_refusal(status, err, str(params), "synthesizer 1", words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"]  # no staging, no table


# --------------------------------------------------------------------------------------------
# Compressed inputs: a bomb refused from a stream, before the parse
# --------------------------------------------------------------------------------------------
def _bomb(path: Path, megabytes: int) -> Path:
    """A gzip CSV of ``megabytes`` MB of identical rows (it compresses about 1000-fold)."""
    rows = b"1,F,0.5\n" * 125_000  # 1 MB
    with gzip.open(path, "wb", compresslevel=9) as fh:
        fh.write(b"age,sex,pay\n")
        for _ in range(megabytes):
            fh.write(rows)
    return path


def test_a_gzip_bomb_is_refused_under_the_memory_cap(tables, tmp_path):
    bomb = _bomb(tmp_path / "bomb.csv.gz", 400)
    stored = bomb.stat().st_size
    assert 400e6 / stored > 300  # a bomb indeed: it expands hundreds of times
    run = _privlib(
        "audit",
        "--train",
        str(tables["train"]),
        "--synthetic",
        str(bomb),
        "--out",
        str(tmp_path / "out"),
        cwd=tmp_path,
    )
    status, err = _finished(run)
    _one_refusal(status, err, "bomb.csv.gz", "expands more than 100 times", "--max-expansion")


def test_the_limits_can_be_raised_and_lowered_by_flags(tables, tmp_path):
    bomb = _bomb(tmp_path / "bomb.csv.gz", 80)
    # a higher ratio lets the expansion pass, a lower size limit then stops it
    run = _privlib(
        "audit",
        "--train",
        str(tables["train"]),
        "--synthetic",
        str(bomb),
        "--max-expansion",
        "1000000",
        "--max-input-mb",
        "50",
        "--out",
        str(tmp_path / "out"),
        cwd=tmp_path,
    )
    status, err = _finished(run)
    _one_refusal(status, err, "expands beyond the input limit of 50 MB", "--max-input-mb")


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz", ".zip"])
def test_every_compression_is_measured_as_a_stream(suffix, tmp_path):
    import bz2
    import lzma
    import zipfile

    size = (EXPANSION_FLOOR_MB + 6) * 1_000_000  # just past the floor the ratio applies above
    path = tmp_path / f"t.csv{suffix}"
    content = b"a,b\n" + b"0,0\n" * ((size - 4) // 4)
    if suffix == ".zip":
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("t.csv", content)
    else:
        {".gz": gzip, ".bz2": bz2, ".xz": lzma}[suffix].open(path, "wb").write(content)
    stored = path.stat().st_size
    ratio = len(content) // stored
    assert ratio > 100  # zeros compress far beyond a real table
    with pytest.raises(PrivlibError, match="expands more than 100 times"):
        check_input_size(path, "t", max_input_mb=10_000, max_expansion=100)
    with pytest.raises(PrivlibError, match="expands beyond the input limit of 10 MB"):
        check_input_size(path, "t", max_input_mb=10, max_expansion=ratio + 1)
    check_input_size(path, "t", max_input_mb=10_000, max_expansion=ratio + 1)  # within both limits


def test_a_plain_file_larger_than_the_limit_is_refused_unread(tmp_path):
    path = tmp_path / "big.csv"
    with open(path, "wb") as fh:
        fh.truncate(3_000_001)  # a sparse file: its size, not its bytes
    with pytest.raises(PrivlibError, match="holds 3 MB, more than the input limit of 2 MB"):
        check_input_size(path, "big", max_input_mb=2, max_expansion=100)


# --------------------------------------------------------------------------------------------
# Every format measured before it is read: the bombs under the memory cap
# --------------------------------------------------------------------------------------------
def _audit_of(train: Path, tmp_path: Path, synthetic: Path | None = None, *extra: str):
    out = tmp_path / "out"
    tables = {"train": train, "synthetic": synthetic or train}
    return _finished(_audit(tables, out, *extra))


def test_a_parquet_bomb_is_refused_under_the_memory_cap(tmp_path):
    # 40 million rows of zeros in 4 columns: 0.7 MB stored, about 2.5 GB once read
    status, err = _audit_of(parquet_bomb(tmp_path / "bomb.parquet"), tmp_path)
    _one_refusal(status, err, "bomb.parquet", "40,000,000 rows x 4 columns", "--max-input-mb")


def test_a_sparse_tar_bomb_is_refused_under_the_memory_cap(tmp_path):
    # a 4 GB CSV, almost all of it a hole, in a 10 KB tar that pandas would read whole
    status, err = _audit_of(sparse_tar_bomb(tmp_path, gigabytes=4), tmp_path)
    _one_refusal(status, err, "bomb.tar", "expands beyond the input limit of 2,000 MB", "--max-input-mb")


def test_zstandard_without_its_package_is_one_line(tables, tmp_path):
    pytest.importorskip("pyarrow")  # the only way to write Zstandard here without the package
    try:
        import zstandard  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("zstandard is installed: the file is read and measured instead")
    path = tmp_path / "t.csv.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(60))
    status, err = _audit_of(tables["train"], tmp_path, path)
    _one_refusal(status, err, "t.csv.zst", "needs the zstandard package")


@pytest.mark.parametrize(
    "columns, words",
    [
        ({"age": "age", "sex": "s\u202eex", "pay": "pay"}, "column 2 of `train` has a name holding"),
        ({"age": "age", "sex": "sex", "pay": "pay\x1f"}, "U+001F"),
    ],
)
def test_a_hidden_character_in_a_name_is_one_line(columns, words, tables, tmp_path):
    path = tmp_path / "named.csv"
    pd.read_csv(tables["train"]).rename(columns=columns).to_csv(path, index=False)
    status, err = _audit_of(path, tmp_path)
    _one_refusal(status, err, words)


@pytest.mark.parametrize(
    "schema, words",
    [
        (
            '{"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "columns": {"age": {"sdtype": "Numerical"}}}',
            "did you mean 'numerical'?",
        ),
        (
            '{"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "primary_key": ["age"], '
            '"columns": {"age": {"sdtype": "id"}, "sex": {"sdtype": "categorical"}}}',
            "`primary_key` must name one column",
        ),
        ("columns:\n  age: {kind: numeric}\n  age: {kind: date}\n", "the key 'age' is given twice"),
    ],
)
def test_schema_slips_are_one_line(schema, words, tables, tmp_path):
    path = tmp_path / "schema.json"
    path.write_text(schema, encoding="utf-8")
    status, err = _audit_of(tables["train"], tmp_path, tables["synthetic"], "--schema", str(path))
    _one_refusal(status, err, words)


def test_sampling_beyond_memory_names_the_setting_to_lower(tmp_path):
    params = tmp_path / "p.yaml"
    params.write_text("dataset: ce\nn_train: 200\nsynthesizers: [{method: GaussianCopula, n: 10000000}]\n")
    run = _privlib("audit", "--params", str(params), "--out", str(tmp_path / "out"), cwd=tmp_path)
    status, err = _finished(run)
    errors = [line for line in err if line.startswith("privlib: error: ")]
    assert status == EXIT_BAD_INPUT and len(errors) == 1, (status, err)
    assert "drawing 10,000,000 rows from GaussianCopula ran out of memory; lower `n`" in errors[0]


# --------------------------------------------------------------------------------------------
# The output folder: checked before any work
# --------------------------------------------------------------------------------------------
def test_a_folder_named_like_a_report_file_is_refused_before_any_work(tables, tmp_path):
    out = tmp_path / "out"
    (out / "report.html").mkdir(parents=True)
    status, err = _finished(_audit(tables, out))
    _one_refusal(status, err, "holds a folder named 'report.html'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging folder was made
