"""synthpop-style CART (Reiter 2005; Nowok, Raab & Dibben 2016): :class:`SequentialTrees`, fully or
partially synthetic, drawing donors from the leaves of fitted trees."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from privlib.errors import PrivlibError
from privlib.schema import (
    check_columns,
)
from privlib.synth.base import MAX_LEAF, _Synthesizer
from privlib.validation import Integer


@dataclass
class _LeafDonors:
    """Training values grouped by the leaf of a fitted tree, to draw donors from.

    ``tree=None`` means a single leaf holding the whole column (its marginal).
    """

    tree: DecisionTreeClassifier | DecisionTreeRegressor | None
    leaves: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    values: np.ndarray

    @classmethod
    def fit(cls, tree, X: np.ndarray | None, values: np.ndarray) -> _LeafDonors:
        leaf = tree.apply(X) if tree is not None else np.zeros(len(values), dtype="int64")
        order = np.argsort(leaf, kind="stable")
        leaves, starts, counts = np.unique(leaf[order], return_index=True, return_counts=True)
        return cls(tree, leaves, starts, counts, values[order])

    def draw(self, X: np.ndarray | None, n: int, rng: np.random.Generator) -> np.ndarray:
        """One donor value per row: uniform among the training values of the row's leaf."""
        leaf = self.tree.apply(X) if self.tree is not None else np.zeros(n, dtype="int64")
        at = np.searchsorted(self.leaves, leaf)
        offset = (rng.random(n) * self.counts[at]).astype("int64")
        return self.values[self.starts[at] + offset]


class SequentialTrees(_Synthesizer):
    """synthpop-style CART: each variable drawn from the leaf of a tree on the ones before it.

    The synthesized variables are visited in turn (``visit_order``). For each, a scikit-learn
    decision tree (a classifier for categorical variables, a regressor for numeric ones, with
    ``min_samples_leaf``) is fitted on the training data to predict it from the variables that
    come before it: the kept variables and the synthesized variables already visited. To sample,
    the synthetic record is passed down the tree and the variable takes the value of a training
    record drawn at random from the leaf it lands in (Reiter 2005; Nowok et al. 2016). In full
    synthesis the first variable has no predecessors and is drawn from its marginal.

    Encoding for scikit-learn: categorical predictors enter as their integer codes (ordinal
    codes, so a nominal variable's splits follow an arbitrary but fixed order of its
    categories); a missing predictor value is coded below every observed value so a split can
    isolate it. Missing values of a categorical variable are a category of their own. For a
    numeric variable with missing values, missingness is modelled first (a tree on a missing
    indicator, donors drawn from its leaves) and the value second (a tree fitted on the records
    where it is observed), so the missing share is kept.

    The trees are grown in ``fit`` deterministically; randomness enters only when donors are
    drawn in ``sample``.

    Parameters
    ----------
    min_samples_leaf : int, default 5
        Fewest training records in a leaf (synthpop's ``minbucket``). Small leaves copy more
        of the training data; large leaves smooth it. From 1 to :data:`MAX_LEAF`.
    synthesize : list of str, optional
        Synthesize only these columns and keep the others unchanged (partially synthetic data):
        row i of the sample is then the synthetic version of training row i, and ``n`` must be
        None or the training size. By default (or when every column is named) every column is
        synthesized and ``n`` is free.
    visit_order : list of str, optional
        Order in which the synthesized columns are visited; it must name each of them once.
        By default they are visited in the order of the table.

    Attributes
    ----------
    kept_ : list of str
        Columns copied unchanged (empty for fully synthetic data).
    visit_order_ : list of str
        The synthesized columns in the order they are drawn.

    References
    ----------
    Reiter JP. Using CART to generate partially synthetic public use microdata. J Official
    Statistics 21(3), 2005. Nowok B, Raab GM, Dibben C. synthpop: bespoke creation of synthetic
    data in R. J Statistical Software 74(11), 2016.

    Examples
    --------
    >>> import privlib as pl
    >>> ce = pl.load_dataset("ce")
    >>> partial = SequentialTrees(synthesize=["Expenditure"]).fit(ce).sample(random_state=0)
    >>> partial["Income"].equals(ce["Income"])
    True
    """

    _constraints = {"min_samples_leaf": [Integer(low=1, high=MAX_LEAF)]}

    def __init__(self, min_samples_leaf: int = 5, synthesize=None, visit_order=None):
        self.min_samples_leaf = min_samples_leaf
        self.synthesize = synthesize
        self.visit_order = visit_order

    def _plan(self, data: pd.DataFrame) -> tuple[list, list]:
        """Return (kept columns, synthesized columns in visiting order) after checking both."""
        columns = list(data.columns)
        chosen = columns if self.synthesize is None else check_columns(data, self.synthesize, "synthesize")
        if len(set(chosen)) != len(chosen):
            raise PrivlibError(f"`synthesize` names a column twice: {chosen}; name each once.")
        if self.visit_order is None:
            order = [c for c in columns if c in chosen]
        else:
            order = check_columns(data, self.visit_order, "visit_order")
            left_out = [c for c in chosen if c not in order]
            foreign = [c for c in order if c not in chosen]
            repeated = sorted({c for c in order if order.count(c) > 1}, key=str)
            if left_out or foreign or repeated:
                raise PrivlibError(
                    "`visit_order` must name each synthesized column exactly once (left out: "
                    f"{left_out}; not synthesized: {foreign}; repeated: {repeated}). The "
                    f"synthesized columns are {chosen}."
                )
        return [c for c in columns if c not in chosen], order

    def _fit(self, data):
        kept, order = self._plan(data)
        self.kept_, self.visit_order_ = kept, order
        train = self.table_.matrix
        position = {c: j for j, c in enumerate(self.columns_)}
        # predictor code for a missing value: below every observed value of that column
        low, high = np.nanmin(train, axis=0), np.nanmax(train, axis=0)
        self.missing_code_ = low - np.maximum(1.0, high - low)
        # (column index, predictor indices, donors for missingness, donors)
        self.steps_: list[tuple[int, list[int], _LeafDonors | None, _LeafDonors]] = []
        before = [position[c] for c in kept]
        for column in order:
            j = position[column]
            y = train[:, j]
            if not before:
                self.steps_.append((j, [], None, _LeafDonors.fit(None, None, y)))
            else:
                X = self._predictors(train, before)
                gate, donors = self._grow(X, y, self.table_.columns[j].numeric)
                self.steps_.append((j, list(before), gate, donors))
            before.append(j)

    def _tree(self, classifier: bool):
        kind = DecisionTreeClassifier if classifier else DecisionTreeRegressor
        # a fixed seed only settles ties between equally good splits, so fit is deterministic
        return kind(min_samples_leaf=self.min_samples_leaf, random_state=0)

    def _grow(self, X, y, numeric):
        missing = np.isnan(y)
        if not numeric:
            labels = np.where(missing, -1, y).astype("int64")
            return None, _LeafDonors.fit(self._tree(True).fit(X, labels), X, y)
        if not missing.any():
            return None, _LeafDonors.fit(self._tree(False).fit(X, y), X, y)
        flags = missing.astype("int64")
        gate = _LeafDonors.fit(self._tree(True).fit(X, flags), X, missing)
        Xo, yo = X[~missing], y[~missing]
        return gate, _LeafDonors.fit(self._tree(False).fit(Xo, yo), Xo, yo)

    def _predictors(self, matrix: np.ndarray, columns: list) -> np.ndarray:
        X = matrix[:, columns]
        return np.where(np.isnan(X), self.missing_code_[columns], X)

    def _sample(self, n, rng):
        partial = bool(self.kept_)
        if partial and n != self.n_train_:
            raise PrivlibError(
                f"`n` must be None or {self.n_train_} (the training size) for partially "
                f"synthetic data, where row i is the synthetic version of training row i; got {n}."
            )
        out = np.full((n, len(self.columns_)), np.nan)
        if partial:
            out[:] = self.table_.matrix
        for j, before, gate, donors in self.steps_:
            X = self._predictors(out, before) if before else None
            out[:, j] = donors.draw(X, n, rng)
            if gate is not None:
                out[gate.draw(X, n, rng), j] = np.nan
        synthetic = self.table_.decode(out)
        for column in self.kept_:
            synthetic[column] = self.data_[column]  # same RangeIndex: copied row by row
        return synthetic
