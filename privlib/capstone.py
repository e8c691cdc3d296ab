"""The capstone's mystery releases: the bundled file, and one variant per student.

The capstone (``notebooks/capstone.ipynb``) asks a student to audit a synthetic release of 2,000
records made from a training sample of UCI Adult. The custodian's tables are fixed
(:func:`custodian_tables`): 2,000 training records, 2,000 holdout records and 2,000 further
records of the population that an adversary may hold (the reference sample of a density attack).

A release mixes records of a sound generator with a leak of one of four kinds (:data:`LEAKS`):

* ``"noisy copies"``: training records with a little noise added (``AdditiveNoise``); exact-match
  checks see almost nothing, distances see a group of records next to their originals;
* ``"exact copies of rare records"``: training records unique on the key variables, released as
  they are; few in number, so averages over all records barely move, but each is an exposed
  person;
* ``"over-fitted generator"``: part of the release drawn from ``SequentialTrees`` grown down to
  leaves of two records, which rebuilds some training records whole and puts most of the others
  a value or two away from one; its donors are not recorded, so ``source_rows`` is empty;
* ``"attribute leakage through a rare key"``: sound records given the key variables and the
  sensitive value of training records unique on the keys, so whoever knows such a person's keys
  reads their sensitive value; the other variables stay synthetic, so no record is a copy.

The sound part is drawn from ``GaussianCopula``, which the kit's rules do not flag on the key's
reference draw (the lecturer's key, ``notebooks/capstone_key.ipynb``, checks it on every run). On
other draws the count of certain attributions through rare keys reads about one in eleven as a risk
(26 of 300): fitted on the training data, the copula gives the training records unique on the keys
their income a little more often than unseen people (3.6 people on average;
``benchmarks/capstone_screen.py``). ``SequentialTrees``
with its default leaves would not do: on this training sample it copies about 1% of its records
exactly and is itself read as a risk by the rules of lessons 01 and 05.

The bundled release (``data/capstone/release.csv``, ``make_release(None)``) is 1,700 sound records
and 300 noisy copies. For a class, :func:`write_release` writes each student's own variant (leak
kind and size drawn from a seed derived from the lecturer's secret phrase and the student's name),
so that answers cannot be shared; the truth of a variant comes only from :func:`make_release` with
that seed, which a student without the phrase cannot derive.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from privlib import synth
from privlib.datasets import load_dataset, sample_split
from privlib.errors import PrivlibError

logger = logging.getLogger(__name__)

#: Seed of the custodian's split of Adult (who is in the training data).
SPLIT_SEED = 16
#: Records in the training sample, the holdout, the adversary's reference sample and the release.
N_RECORDS = 2000
#: The sound generator of every release.
SOUND_GENERATOR = "GaussianCopula"
#: The kinds of leak and the range of leaked records each variant draws from (inclusive).
LEAKS = {
    "noisy copies": (100, 400),
    "exact copies of rare records": (20, 60),
    "over-fitted generator": (100, 400),
    "attribute leakage through a rare key": (20, 60),
}
#: Records per leaf of the over-fitted generator: two, so each value is drawn from one of two donors.
OVERFITTED_LEAF = 2
#: The longest student name :func:`write_release` accepts (it becomes part of a file name).
MAX_NAME_LENGTH = 100
#: The bundled release: its leak and size.
BUNDLED = ("noisy copies", 300)


@dataclass(frozen=True)
class Truth:
    """How a capstone release was made (for the lecturer's key only).

    ``leaked_rows`` are the rows of the release that carry the leak, and ``source_rows`` the
    training rows they come from, in the same order (empty for an over-fitted generator, whose
    donors are not recorded).
    """

    seed: int | None
    sound_generator: str
    leak: str
    n_leaked: int
    leaked_rows: tuple[int, ...]
    source_rows: tuple[int, ...]

    def describe(self) -> str:
        return (
            f"{N_RECORDS - self.n_leaked:,} records drawn from {self.sound_generator} fitted on the "
            f"training data, and {self.n_leaked:,} records of the leak ({self.leak}), shuffled together"
        )


def custodian_tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``(train, holdout, reference)``: three disjoint samples of Adult of 2,000 records each.

    ``train`` and ``holdout`` are those of ``sample_split(adult, 2000, 2000, random_state=16)``;
    ``reference`` is the next 2,000 records of the same permutation.
    """
    train, rest = sample_split(load_dataset("adult"), N_RECORDS, 2 * N_RECORDS, random_state=SPLIT_SEED)
    holdout = rest.iloc[:N_RECORDS].reset_index(drop=True)
    reference = rest.iloc[N_RECORDS:].reset_index(drop=True)
    return train, holdout, reference


def variant_seed(*, student: str, secret: str) -> int:
    """A 64-bit seed from the lecturer's secret phrase and a student's name (SHA-256)."""
    for name, value in (("student", student), ("secret", secret)):
        if not isinstance(value, str) or not value.strip():
            raise PrivlibError(f"`{name}` must be a non-empty string, got {value!r}.")
    digest = hashlib.sha256(f"{secret.strip()}\n{student.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _rare_rows(train: pd.DataFrame) -> np.ndarray:
    """Rows of ``train`` whose combination of key variables no other training record shares."""
    keys = load_dataset("adult", with_info=True)[1].keys
    return np.flatnonzero(~train.duplicated(keys, keep=False).to_numpy())


def _leaked_records(train: pd.DataFrame, leak: str, n_leaked: int, rng: np.random.Generator):
    """``(records, source rows)``: the records of a release that carry the leak."""
    if leak == "noisy copies":
        rows = rng.choice(len(train), size=n_leaked, replace=False)
        chosen = train.iloc[rows].reset_index(drop=True)
        noisy = synth.AdditiveNoise().fit(chosen).sample(n_leaked, random_state=rng)
        return noisy, rows
    if leak == "over-fitted generator":
        overfitted = synth.SequentialTrees(min_samples_leaf=OVERFITTED_LEAF).fit(train)
        return overfitted.sample(n_leaked, random_state=rng), np.array([], dtype=int)
    rare = _rare_rows(train)
    rows = rng.choice(rare, size=min(n_leaked, len(rare)), replace=False)
    exposed = train.iloc[rows].reset_index(drop=True)
    if leak == "exact copies of rare records":
        return exposed, rows
    info = load_dataset("adult", with_info=True)[1]
    carrier = synth.make(SOUND_GENERATOR).fit(train).sample(len(rows), random_state=rng)
    revealed = {column: exposed[column].to_numpy() for column in [*info.keys, *info.sensitive]}
    return carrier.assign(**revealed).astype(train.dtypes.to_dict()), rows


def make_release(
    seed: int | None = None, *, leak: str | None = None, n_leaked: int | None = None
) -> tuple[pd.DataFrame, Truth]:
    """A capstone release and its truth: the bundled one (``seed=None``) or the variant of ``seed``.

    The same seed gives the same release bit for bit. A variant draws its leak kind from
    :data:`LEAKS` and the number of leaked records from that kind's range. ``leak`` and
    ``n_leaked`` (given together) set the kind and size instead, the rest drawn from ``seed`` as
    before: how the key and the tests screen every kind at a chosen size.
    """
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise PrivlibError(f"`seed` must be None or a whole number >= 0, got {seed!r}.")
    if (leak is None) != (n_leaked is None):
        raise PrivlibError("give `leak` and `n_leaked` together, or neither.")
    if leak is not None and leak not in LEAKS:
        raise PrivlibError(f"`leak` must be one of {list(LEAKS)}, got {leak!r}.")
    if n_leaked is not None and (
        isinstance(n_leaked, bool)
        or not isinstance(n_leaked, (int, np.integer))
        or not 1 <= n_leaked < N_RECORDS
    ):
        raise PrivlibError(f"`n_leaked` must be a whole number from 1 to {N_RECORDS - 1}, got {n_leaked!r}.")
    rng = np.random.default_rng(SPLIT_SEED if seed is None else int(seed))
    if seed is None:
        drawn = BUNDLED
    else:
        kind = list(LEAKS)[rng.integers(len(LEAKS))]
        low, high = LEAKS[kind]
        drawn = (kind, int(rng.integers(low, high + 1)))
    if leak is None or n_leaked is None:
        leak, n_leaked = drawn
    train, _, _ = custodian_tables()
    leaked, sources = _leaked_records(train, leak, n_leaked, rng)
    n_leaked = len(leaked)
    sound = synth.make(SOUND_GENERATOR).fit(train).sample(N_RECORDS - n_leaked, random_state=rng)
    order = rng.permutation(N_RECORDS)
    release = pd.concat([sound, leaked], ignore_index=True).iloc[order].reset_index(drop=True)
    # release row r holds record order[r] of the concatenation; the leaked ones sit after the sound ones
    position = np.empty(N_RECORDS, dtype=int)
    position[order] = np.arange(N_RECORDS)
    leaked_rows = position[N_RECORDS - n_leaked :]
    truth = Truth(
        seed=seed,
        sound_generator=SOUND_GENERATOR,
        leak=leak,
        n_leaked=n_leaked,
        leaked_rows=tuple(int(r) for r in leaked_rows),
        source_rows=tuple(int(r) for r in sources),
    )
    return release, truth


def sound_release(seed: int) -> pd.DataFrame:
    """A release of :data:`N_RECORDS` records from the sound generator alone, fitted on the
    training data: the reference a leak is told apart from."""
    train, _, _ = custodian_tables()
    return synth.make(SOUND_GENERATOR).fit(train).sample(N_RECORDS, random_state=seed)


def exact_tests(families) -> tuple:
    """The catalogue's measures of ``families`` whose results carry an exact test's p-value: the
    tests each family's Holm adjustment runs over in the audit."""
    import dataclasses
    import typing

    from privlib.catalogue import CATALOGUE

    def reports_p(spec) -> bool:
        returned = typing.get_type_hints(spec.function.resolve()).get("return")
        return dataclasses.is_dataclass(returned) and "p_value" in {
            f.name for f in dataclasses.fields(returned)
        }

    return tuple(s for s in CATALOGUE if s.family in families and s.function is not None and reports_p(s))


def screen(release: pd.DataFrame, families=("identity", "attribute", "membership")):
    """The audit of a capstone release on the exact tests of ``families`` only (:func:`exact_tests`).

    Each family's Holm adjustment is then the full audit's (the same tests, the same p-values), so
    a family this screen reads as a risk through an exact test that survives the adjustment is a
    risk in the full audit too, and its decision "do not release". The other measures are not
    run, and fidelity is read on a sample of 100 records: a screen that finds no risk does not clear
    a release.
    """
    from privlib.audit.runner import Audit, inputs_of
    from privlib.audit.spec import AuditSpec

    train, holdout, _ = custodian_tables()
    info = load_dataset("adult", with_info=True)[1]
    # fidelity is context beside the decision: read on the fewest records the audit allows
    spec = AuditSpec.build(
        train=train,
        synthetic=release,
        holdout=holdout,
        keys=list(info.keys),
        sensitive=list(info.sensitive),
        fidelity_sample=100,
    )
    return Audit(inputs_of(spec), spec, catalogue=exact_tests(families)).run()


def write_release(out_dir, *, student: str, secret: str) -> Path:
    """Write one student's release as ``release_<student>.csv`` in ``out_dir``; return its path.

    Only the release is written, never its truth: run the lecturer's key with the same
    ``student`` and ``secret`` to see it. An existing file of that name is not overwritten.
    """
    seed = variant_seed(student=student, secret=secret)
    if len(student.strip()) > MAX_NAME_LENGTH:
        raise PrivlibError(
            f"`student` is {len(student.strip())} characters long; give a name of at most "
            f"{MAX_NAME_LENGTH} (it becomes part of the file name)."
        )
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in student.strip())
    out = Path(out_dir)
    target = out / f"release_{safe}.csv"
    if target.exists() or target.is_symlink():
        raise PrivlibError(f"{target} already exists; remove it or choose another folder.")
    release, _ = make_release(seed)
    try:
        out.mkdir(parents=True, exist_ok=True)
        release.to_csv(target, index=False)
    except OSError as error:
        raise PrivlibError(
            f"cannot write {target}: {error.strerror or error}; choose another folder."
        ) from None
    logger.info("wrote the capstone release of %s to %s", student, target)
    return target
