"""Reuse of exact neighbour searches within one piece of work, such as an audit.

Several measures of an audit ask the engine the same question: the distance from each synthetic
record to its nearest training record is part of the DCR summary, of adversarial accuracy and of
the privacy loss. Inside :func:`reuse_searches`, :func:`privlib.neighbors.kneighbors` answers a
search it has already made from the earlier result. A search is the same when the query and
reference tables hold the same values (a digest of their contents), the encoder is fitted to the
same state (ranges, categories, weights) and ``metric`` and ``exclude_self`` agree; the
engine's result does not depend on its memory budget, threads or Dask cluster, so those are not
part of the question. A search for fewer neighbours than a kept one is answered by its first
columns: the engine lists neighbours by distance, ties to the lower row, so the ``k`` nearest are
the first ``k`` of any longer list; so is a search within bounds (``within``), from a list
searched within wider ones.
Kept results are read-only arrays, so no caller can change them for the next one.

The block also keeps the references the engine has prepared (encoded, sorted and cut into tiles
with their bounding boxes): an audit searches its three tables, with one encoder, many times over
with different queries, and at a million records preparing one costs a second or two each time.
A prepared reference is the same when the table holds the same values, the encoder is fitted to
the same state, and the metric and the rows per block agree (the sort order is read from the
first block, so it follows from these); the searches that read it return what they would return
after preparing it afresh, bit for bit.

Outside the block nothing is kept, so a long session holds no distances or prepared tables it no
longer needs.
"""

from __future__ import annotations

import hashlib
import logging
import weakref
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import pandas as pd

from privlib.errors import PrivlibError

logger = logging.getLogger(__name__)

__all__ = ["reuse_searches", "shared_searches", "table_digest"]


def table_digest(table: Any) -> str:
    """SHA-256 of a table's column names, types and values, row order included (a DataFrame or
    a numeric array)."""
    digest = hashlib.sha256()
    if isinstance(table, pd.DataFrame):
        digest.update(repr([(repr(c), str(t)) for c, t in table.dtypes.items()]).encode())
        digest.update(pd.util.hash_pandas_object(table, index=False).to_numpy().tobytes())
        for position, dtype in enumerate(table.dtypes):
            if dtype != np.dtype(object):
                continue
            # pandas hashes an object column's values by their text, so True and "True" would
            # agree; their types tell them apart
            kinds = table.iloc[:, position].map(lambda value: type(value).__qualname__)
            digest.update(pd.util.hash_pandas_object(kinds, index=False).to_numpy().tobytes())
    else:
        array = np.ascontiguousarray(table)
        digest.update(repr((array.dtype.str, array.shape)).encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def encoder_fingerprint(encoder: Any) -> str:
    """SHA-256 of the fitted state of a :class:`~privlib.schema.TableEncoder` that its codes
    depend on (``None`` for the numeric metrics, which have no encoder)."""
    if encoder is None:
        return ""
    state = (
        encoder.metric,
        encoder.n_bins,
        [str(c) for c in encoder.columns_],
        [str(encoder.kinds_[c]) for c in encoder.columns_],
        [(repr(encoder.lows_[c]), repr(encoder.spans_[c])) for c in encoder.lows_],
        [[repr(label) for label in encoder.categories_[c]] for c in encoder.categories_],
        encoder.feature_weights.tolist(),
    )
    return hashlib.sha256(repr(state).encode()).hexdigest()


class _Kept:
    """Values under keys within a budget of bytes; the least recently used make room first."""

    def __init__(self, budget_bytes: int):
        self.budget_bytes = budget_bytes
        self.bytes = 0
        self._values: OrderedDict[tuple, tuple[Any, int]] = OrderedDict()

    def get(self, key: tuple) -> Any:
        kept = self._values.get(key)
        if kept is None:
            return None
        self._values.move_to_end(key)
        return kept[0]

    def make_room(self, size: int) -> bool:
        """Drop the least recently used values until ``size`` more bytes fit; ``False`` (and
        nothing dropped) when they would not fit in the whole budget."""
        if size > self.budget_bytes:
            return False
        while self.bytes + size > self.budget_bytes:
            _, (_, dropped) = self._values.popitem(last=False)
            self.bytes -= dropped
        return True

    def put(self, key: tuple, value: Any, size: int) -> bool:
        """Keep ``value`` (``size`` bytes) under ``key`` in place of an earlier one, unless it is
        larger than the whole budget; whether it is kept."""
        replaced = self._values.pop(key, None)
        if replaced is not None:
            self.bytes -= replaced[1]
        if not self.make_room(size):
            return False
        self._values[key] = (value, size)
        self.bytes += size
        return True

    def clear(self) -> None:
        self._values.clear()
        self.bytes = 0


class _Searches:
    """The results and prepared references kept by one :func:`reuse_searches` block."""

    def __init__(self, budget_bytes: int, reference_budget_bytes: int):
        self.made = 0
        self.reused = 0
        self.references_kept = 0
        self.references_reused = 0
        self._results = _Kept(budget_bytes)
        self._references = _Kept(reference_budget_bytes)
        # a table's digest under its id, while the table lives: a measure passes the same frames
        # to several searches, and hashing a million records takes a third of a second
        self._digests: dict[int, tuple[weakref.ref, str]] = {}

    @property
    def reference_budget_bytes(self) -> int:
        return self._references.budget_bytes

    @property
    def reference_bytes(self) -> int:
        """Bytes of the prepared references kept now."""
        return self._references.bytes

    def digest(self, table: Any) -> str:
        if not isinstance(table, pd.DataFrame):  # arrays are cheap to hash and often changed in place
            return table_digest(table)
        known = self._digests.get(id(table))
        if known is not None and known[0]() is table:
            return known[1]
        value = table_digest(table)
        self._digests[id(table)] = (weakref.ref(table), value)
        return value

    def key(self, query: Any, reference: Any, encoder: Any, **question: Any) -> tuple:
        """The question of a search, its number of neighbours ``k`` left out (see :meth:`get`)."""
        return (
            self.digest(query),
            self.digest(reference),
            encoder_fingerprint(encoder),
            tuple(sorted(question.items())),
        )

    def get(self, key: tuple, k: int, within: np.ndarray | None = None) -> Any:
        """The kept answer to ``key`` for ``k`` neighbours ``within`` these bounds (``None``: no
        bound): the first ``k`` columns of a kept list at least that long, searched within bounds
        at least as wide, with the neighbours beyond ``within`` dropped (``None`` when there is
        none)."""
        kept = self._results.get(key)
        if kept is None or not _answers(kept, k, within):
            self.made += 1
            return None
        self.reused += 1
        found, bound = kept
        if found.distances.shape[1] == k and (within is None or within is bound):
            return found
        distances, indices = found.distances[:, :k], found.indices[:, :k]
        if within is not None:
            # the kept list is sorted by distance: the neighbours beyond the asked bound close it
            beyond = distances > within[:, None]
            if beyond.any():
                distances, indices = distances.copy(), indices.copy()
                distances[beyond], indices[beyond] = np.inf, -1
                for array in (distances, indices):
                    array.setflags(write=False)
        return type(found)(distances=distances, indices=indices)

    def keep(self, key: tuple, neighbors: Any, within: np.ndarray | None = None) -> None:
        for array in (neighbors.distances, neighbors.indices):
            array.setflags(write=False)
        self._results.put(key, (neighbors, within), _size(neighbors))

    def reference_key(self, reference: Any, encoder: Any, **preparation: Any) -> tuple:
        """What a prepared reference depends on: the table's values, the encoder's fitted state
        and the ``preparation`` (metric, rows per block)."""
        return (self.digest(reference), encoder_fingerprint(encoder), tuple(sorted(preparation.items())))

    def prepared_reference(self, key: tuple) -> Any:
        """The reference prepared under ``key`` (see :meth:`reference_key`), or ``None``."""
        prepared = self._references.get(key)
        if prepared is not None:
            self.references_reused += 1
        return prepared

    def room_for_reference(self, size: int) -> None:
        """Make room for a reference of ``size`` bytes (at most the budget) about to be prepared,
        before it is, so that the kept ones and the new one never exceed the budget together."""
        self._references.make_room(size)

    def keep_reference(self, key: tuple, prepared: Any, size: int) -> None:
        """Keep a reference prepared under ``key``, ``size`` bytes of read-only arrays."""
        self.references_kept += self._references.put(key, prepared, size)

    def close(self) -> None:
        """Drop everything kept: nothing outlives the block, even if its object is held on to."""
        self._results.clear()
        self._references.clear()
        self._digests.clear()


def _answers(kept: tuple, k: int, within: np.ndarray | None) -> bool:
    """Whether a kept ``(neighbors, bound)`` holds the answer for ``k`` neighbours ``within``."""
    found, bound = kept
    if found.distances.shape[1] < k:
        return False
    if bound is None:
        return True
    return within is not None and bool(np.all(within <= bound))


def _size(neighbors: Any) -> int:
    return neighbors.distances.nbytes + neighbors.indices.nbytes


_ACTIVE: ContextVar[_Searches | None] = ContextVar("privlib_reused_searches", default=None)


def active() -> _Searches | None:
    """The innermost open :func:`reuse_searches` block, if any."""
    return _ACTIVE.get()


@contextmanager
def reuse_searches(max_memory_mb: float = 1024, reference_memory_mb: float = 128) -> Iterator[_Searches]:
    """Within the block, answer a neighbour search already made from its kept result, and search
    a reference already prepared without preparing it again.

    Parameters
    ----------
    max_memory_mb : float, default 1024
        Most memory the kept results may take (16 bytes per query record and neighbour); when a
        new result would exceed it, the least recently used are dropped.
    reference_memory_mb : float, default 128
        Most memory the kept prepared references may take (``8 * (p + 1)`` bytes per record of
        ``p`` encoded variables, about 123 MiB for a million records of Adult's 15); the least
        recently used are dropped to make room for a new one, and a reference larger than the
        whole budget is prepared a block at a time and not kept. An audit mostly searches one
        reference several times in a row, so the latest whole table is where most of the reuse
        lies: an audit of a million records reads a kept reference 13 times with this budget,
        15 times with twice it.

    Notes
    -----
    Tables are recognised by their contents. An array changed in place between two searches is
    searched afresh; a DataFrame's digest is remembered per object while it lives, so do not
    change a DataFrame in place inside the block.

    Examples
    --------
    >>> import pandas as pd
    >>> from privlib.neighbors import nearest_distances
    >>> table = pd.DataFrame({"x": [0.0, 1.0, 3.0]})
    >>> with reuse_searches() as searches:
    ...     first = nearest_distances(table, table, exclude_self=True)
    ...     again = nearest_distances(table, table, exclude_self=True)
    ...     other = nearest_distances(table.iloc[:2], table)
    >>> searches.made, searches.reused, searches.references_kept, searches.references_reused
    (2, 1, 1, 1)
    """
    budgets = (max_memory_mb, reference_memory_mb)
    for name, budget in zip(("max_memory_mb", "reference_memory_mb"), budgets):
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0:
            raise PrivlibError(f"`{name}` must be a positive number, got {budget!r}.")
    searches = _Searches(*(int(budget * 2**20) for budget in budgets))
    token = _ACTIVE.set(searches)
    try:
        yield searches
    finally:
        _ACTIVE.reset(token)
        searches.close()
        logger.debug(
            "neighbour searches: %d made, %d reused; references: %d kept, %d reused",
            searches.made,
            searches.reused,
            searches.references_kept,
            searches.references_reused,
        )


@contextmanager
def shared_searches() -> Iterator[_Searches]:
    """The open :func:`reuse_searches` block, or a new one until the end of this block: a measure
    whose parts ask the engine the same questions shares its searches among them, and with the
    rest of an audit when it runs inside one."""
    searches = active()
    if searches is not None:
        yield searches
        return
    with reuse_searches() as searches:
        yield searches
