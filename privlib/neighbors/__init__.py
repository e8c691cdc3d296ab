"""Exact k-nearest neighbours between two tables, in memory-bounded blocks.

Every distance-based measure of the kit asks the same question: for each record of one table,
which records of another table are closest, and how close are they. This module answers it
exactly for four metrics:

``"gower"``
    mean over variables of the per-variable distance (Gower 1971): ``|a - b| / range`` for a
    numeric variable (range from the tables the encoder is fitted on), 0 or 1 for a categorical
    one. Values 0..1.
``"hamming"``
    number of variables that differ, numeric variables first cut into equal-width bins (20 by
    default, as El Emam et al. do).
``"l1"``, ``"l2"``
    Manhattan and Euclidean distance between numeric arrays, taken as they are.

Missing values (Gower and Hamming): missing equals missing, missing against a value counts 1.

Both table-based metrics go through :class:`privlib.schema.TableEncoder`, which reduces them to
one formula ``sum_k w_k * min(|a_k - b_k|, cap) / scale``; L1 is the same formula with no cap.
The search never holds the ``n_query x n_reference`` distance matrix: it walks the tables in
blocks sized from ``max_memory_mb``.

Beyond one machine, ``kneighbors(..., client=client)`` runs the same search on a Dask cluster
(``dask.distributed``, the optional ``dask`` extra): the reference is encoded, sorted and tiled
once here and scattered to every worker, blocks of encoded queries are mapped to the workers,
and the results are gathered in query order. Each worker runs the same kernel, and ties go to
the lower reference row whatever the order of the visits, so the result is the local one, bit
for bit.
"""

from privlib.neighbors.engine import METRICS, Neighbors
from privlib.neighbors.search import kneighbors, nearest_distances

__all__ = ["METRICS", "Neighbors", "kneighbors", "nearest_distances"]
