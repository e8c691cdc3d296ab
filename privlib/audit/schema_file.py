"""Write the JSON Schema of metrics.json that the package ships: ``python -m privlib.audit.schema_file``.

``tests/test_audit.py`` fails when the shipped file differs from :func:`metrics_schema`.
"""

import json
from pathlib import Path

from privlib.audit.report import metrics_schema

SCHEMA_PATH = Path(__file__).with_name("metrics.schema.json")

if __name__ == "__main__":
    SCHEMA_PATH.write_text(json.dumps(metrics_schema(), indent=2) + "\n", encoding="utf-8")
