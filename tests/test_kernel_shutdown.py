"""A notebook that ran to the end shuts its kernel down without interrupting it.

jupyter_client interrupts a kernel (SIGINT) before asking it to shut down; when the signal lands
while the kernel still answers a message, ipykernel logs "KeyboardInterrupt caught in kernel."
into the log of a run that succeeded. The kit's kernel manager asks without interrupting.
"""

from __future__ import annotations

import nbformat
import pytest

from privlib.pipeline import execution as pipeline

pytestmark = pytest.mark.notebook


def test_a_finished_notebook_is_shut_down_without_an_interrupt(tmp_path, monkeypatch, capfd):
    pytest.importorskip("papermill")
    base = pipeline._ipc_kernel_manager()
    interrupts = []

    class Watched(base):
        async def _async_interrupt_kernel(self):  # what jupyter_client's shutdown calls
            interrupts.append("shutdown")
            await super()._async_interrupt_kernel()

        async def interrupt_kernel(self):  # what nbclient calls on a cell timeout
            interrupts.append("timeout")
            await super().interrupt_kernel()

    monkeypatch.setattr(pipeline, "_ipc_kernel_manager", lambda: Watched)
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("value = 1", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("print('value', value * 2)"),
        ]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, tmp_path / "small.ipynb")
    for run in range(3):
        pipeline._execute(
            tmp_path / "small.ipynb",
            tmp_path / f"run{run}.ipynb",
            {"value": 21},
            cwd=tmp_path,
            progress=False,
        )
        executed = nbformat.read(tmp_path / f"run{run}.ipynb", as_version=4)
        assert executed.cells[-1].outputs[0]["text"] == "value 42\n"
    assert interrupts == []
    assert "KeyboardInterrupt" not in capfd.readouterr().err
