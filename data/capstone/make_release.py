"""Make the capstone's mystery release (for the lecturer; students audit release.csv blind).

The recipe lives in :mod:`privlib.capstone` (``make_release(None)``: 1,700 records drawn from
GaussianCopula fitted on the custodian's training data and 300 noisy copies of training records,
shuffled). Its truth, and the kit's verdicts on it, are in ``notebooks/capstone_key.ipynb``. Run
from the repository root: ``python data/capstone/make_release.py``.
"""

from pathlib import Path

from privlib import capstone


def main() -> None:
    release, _ = capstone.make_release(None)
    release.to_csv(Path(__file__).with_name("release.csv"), index=False)


if __name__ == "__main__":
    main()
