"""Rewrite ``tests/pinned_audit_metrics.json`` from fresh audits and print the diff for review.

``make pins`` runs it. The ACS and Adult params audits are run as ``tests/test_pinned_metrics.py``
runs them (:func:`audit`), and every measure's pinned fields (:data:`PINNED_FIELDS`) are written
back. Review the diff before committing it: a pin changes only where a measure or a rule was
changed on purpose, and the commit says which and why.
"""

from __future__ import annotations

import difflib
import json
import sys
import tempfile
from pathlib import Path

from privlib.audit import AuditReport, materialise, run
from privlib.pipeline import audit_spec, params_file

PINNED_PATH = Path(__file__).with_name("pinned_audit_metrics.json")

#: The bundled params audits whose numbers are pinned.
AUDITS = ("acs", "adult")

#: The fields of each measure's record that are pinned.
PINNED_FIELDS = ("baseline", "ci_high", "ci_low", "threshold", "value", "verdict")


def audit(name: str, folder: Path) -> AuditReport:
    """The params audit ``name``, its tables made (materialised) in ``folder``."""
    spec, recipe = audit_spec(params=params_file(name))
    made = materialise(recipe | {"seed": spec.seed}, folder)
    return run(
        spec.model_copy(
            update={
                "train": Path(made["train"]),
                "holdout": Path(made["holdout"]),
                "synthetic": [Path(p) for p in made["synthetic"]],
            }
        )
    )


def pins(report: AuditReport) -> dict[str, dict]:
    """The pinned fields of every measure of ``report``, by key."""
    return {m.key: {field: getattr(m, field) for field in PINNED_FIELDS} for m in report.measures}


def as_text(pinned: dict) -> str:
    """The pinned numbers as the file holds them."""
    return json.dumps(pinned, indent=1, sort_keys=True) + "\n"


def main() -> int:
    fresh = {}
    for name in AUDITS:
        with tempfile.TemporaryDirectory() as folder:
            fresh[name] = pins(audit(name, Path(folder)))
    old, new = PINNED_PATH.read_text(encoding="utf-8"), as_text(fresh)
    diff = list(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "pinned", "fresh audits"))
    if not diff:
        sys.stdout.write(f"{PINNED_PATH.name}: unchanged\n")
        return 0
    PINNED_PATH.write_text(new, encoding="utf-8")
    sys.stdout.writelines(diff)
    sys.stdout.write(f"\n{PINNED_PATH.name} rewritten; review the diff above before committing it.\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
