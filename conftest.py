"""Set before any test module or plugin loads: without it, collecting the tests took 4 s more.

nbformat (imported by nbval, papermill and the notebook tests) loads jsonschema, which imports
``rfc3987_syntax`` when it is installed and builds a grammar for a string format no notebook uses;
marked absent here, as the ``privlib`` command marks it, jsonschema skips that format. nbval is
therefore loaded from here (``-p no:nbval`` in pyproject.toml stops its entry point, which would
load it earlier).
"""

import sys

sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]

pytest_plugins = ["nbval.plugin"]
