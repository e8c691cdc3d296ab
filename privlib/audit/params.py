"""Audit params files (YAML): what to audit, and how the tables of a bundled-dataset audit are made."""

from __future__ import annotations

import math
import os
from pathlib import Path

from privlib.audit.inputs import file_labels
from privlib.audit.spec import MAX_SYNTHETIC, TABLE_FIELDS, AuditSpec, user_settings
from privlib.audit.yamlfile import read_yaml
from privlib.datasets import DATASETS, load_dataset, sample_split
from privlib.errors import PrivlibError
from privlib.schema import check_columns

__all__ = ["read_params", "materialise"]


def _text(v):
    return isinstance(v, str) and v.strip() != ""


def _count(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _names(v):
    return _text(v) or (
        isinstance(v, list) and 0 < len(v) <= MAX_SYNTHETIC_FILES and all(_text(x) for x in v)
    )


#: Most rows a synthesizer entry may ask for (``n``): more would exhaust memory, not inform.
MAX_SYNTHETIC_ROWS = 10_000_000

#: Most synthesizer entries in a params file: each adds a synthetic table to every comparison of
#: the report, and a few dozen bytes of entries would otherwise make a report of hundreds of pages.
MAX_SYNTHESIZERS = MAX_SYNTHETIC

#: Most synthetic files a params file may list, for the same reason.
MAX_SYNTHETIC_FILES = MAX_SYNTHETIC

#: The fields of a ``synthesizers`` entry.
_ENTRY_FIELDS = ("method", "params", "n")


def _synthesizers(v):
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def _json_scalar(v) -> bool:
    """A value JSON writes as itself: text, true/false, null, or a finite number."""
    if isinstance(v, float):
        return math.isfinite(v)
    return v is None or isinstance(v, (str, bool, int))


def _check_entries(entries, source: str) -> None:
    """Refuse, before any table is made, a ``synthesizers`` entry that is not ``method`` (a
    synthesizer of :mod:`privlib.synth`), ``params`` (its hyper-parameters: JSON scalars or lists
    of them) and ``n`` (rows to sample, a whole number > 0)."""
    from privlib import synth

    if not _synthesizers(entries):
        raise PrivlibError(f"{source}: `synthesizers` must be {_FIELDS['synthesizers'][1]}.")
    if len(entries) > MAX_SYNTHESIZERS:
        raise PrivlibError(
            f"{source} lists {len(entries)} synthesizers, more than the {MAX_SYNTHESIZERS} a report "
            "compares; audit them in several runs."
        )
    for i, entry in enumerate(entries, 1):
        where = f"{source}, synthesizer {i}"
        unknown = sorted(map(str, set(entry) - set(_ENTRY_FIELDS)))
        if unknown:
            raise PrivlibError(
                f"{where} has unknown field(s) {unknown}; an entry has only {list(_ENTRY_FIELDS)}."
            )
        if not _text(entry.get("method")):
            raise PrivlibError(f"{where} needs a `method`, the name of a privlib.synth synthesizer.")
        settings = entry.get("params") or {}
        if not isinstance(settings, dict) or not all(isinstance(k, str) for k in settings):
            raise PrivlibError(f"{where}: `params` must be a mapping of parameter names to values.")
        for name, value in settings.items():
            values = value if isinstance(value, list) else [value]
            if not all(_json_scalar(x) for x in values):
                kinds = sorted({type(x).__name__ for x in values if not _json_scalar(x)})
                raise PrivlibError(
                    f"{where}: parameter {name!r} holds {', '.join(kinds)}; give a number, a text, "
                    "true/false, or a list of them."
                )
        n = entry.get("n")
        if n is not None and not (_count(n) and 0 < n <= MAX_SYNTHETIC_ROWS):
            raise PrivlibError(
                f"{where}: `n` must be a whole number from 1 to {MAX_SYNTHETIC_ROWS:,}, got "
                f"{type(n).__name__} {str(n)[:40]}."
            )
        try:  # an unknown name or parameter, or a value its constraints refuse, fails now
            synth.make(entry["method"], **settings)
        except PrivlibError as exc:
            raise PrivlibError(f"{where} ({entry['method']}): {exc}") from None


#: Most training or holdout rows a bundled-dataset params file may ask for.
MAX_SPLIT_ROWS = 10_000_000


def _rows(low: int):
    return lambda v: _count(v) and low <= v <= MAX_SPLIT_ROWS


#: The fields of a params file that say how its tables are made or where they are, with the test
#: each value must pass and what that test asks for. Every other field is a setting of
#: :class:`~privlib.audit.spec.AuditSpec` under its own name, checked by the spec.
_FIELDS = {
    "dataset": (_text, "the name of a bundled dataset"),
    "n_train": (_rows(1), f"a whole number from 1 to {MAX_SPLIT_ROWS:,}"),
    "n_holdout": (_rows(0), f"a whole number from 0 to {MAX_SPLIT_ROWS:,}"),
    "synthesizers": (_synthesizers, "a list of entries, each with a `method` and optional `params` and `n`"),
    "train": (_text, "the path of a CSV file"),
    "synthetic": (_names, f"the path of a CSV file or a list of at most {MAX_SYNTHETIC_FILES} of them"),
    "holdout": (_text, "the path of a CSV file"),
}


def _check_synthesizer_name(params: dict, source: str) -> None:
    """Refuse a ``targeted_attack`` that is not a synthesizer of :mod:`privlib.synth`, by its
    text alone: a params file is data, and a ``module:Class`` there would have Python import
    (run) a module the file names. A generator of one's own is named on the command line
    (``--targeted-attack``) or in the Python API."""
    from privlib import synth

    name = params.get("targeted_attack")
    known = [*synth.SYNTHESIZERS, *synth._LAZY]
    if name is None or name in known:
        return
    what = "names a module" if isinstance(name, str) and ":" in name else "is not a synthesizer of the kit"
    raise PrivlibError(
        f"{source}: `targeted_attack` {what}; a params file may name only one of {known}. Give "
        "a generator of your own (module:Class) with --targeted-attack on the command line."
    )


def _under_root(params: dict, path: Path, root: Path | None) -> None:
    """Refuse a file a params file names (a table, the schema file) that lies outside ``root``
    (default: the params file's own folder), by an absolute path, by ``..`` or through a
    symbolic link: a params file may come from someone else, and the files it names are read and
    their values reported. The message names the field, never a line of the file."""
    if root is not None and not os.path.isdir(root):
        raise PrivlibError(
            f"`--data-root` {str(root)!r} is not a folder; give the folder that holds the tables."
        )
    allowed = os.path.realpath(path.parent if root is None else root)
    where = "the folder given with --data-root" if root is not None else "the params file's folder"
    for name in (*TABLE_FIELDS, "schema_file"):
        value = params.get(name)
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str):
                continue
            try:
                real = os.path.realpath(path.parent / item)
            except (OSError, ValueError):  # a NUL in the text, a loop of links
                real = ""
            if not real or os.path.commonpath([real, allowed]) != allowed:
                raise PrivlibError(
                    f"params file {str(path)!r}: `{name}` names a file outside {where} "
                    f"{allowed!r} (by an absolute path, `..` or a symbolic link); a params file "
                    "names only files inside it. Move the file there, or give the folder that "
                    "holds it with --data-root."
                )


def _settings() -> list[str]:
    """The spec's settings a params file may give, beside its tables."""
    return [name for name in user_settings() if name not in TABLE_FIELDS]


def read_params(path, *, root=None) -> dict:
    """Read an audit parameters file (YAML) and check its fields.

    The file either names a bundled ``dataset`` with ``n_train``, ``n_holdout`` and a list of
    ``synthesizers`` (each ``{method: ..., params: {...}}``), from which :func:`materialise`
    makes the CSV files, or gives ``train``, ``synthetic`` and ``holdout`` paths (relative to the
    file's folder). Any setting of :class:`~privlib.audit.spec.AuditSpec` may be given too, under
    its own name (``seed``, ``repeats``, ``cap_bins``, ``schema_file``, ...), and is checked as the
    spec checks it. See ``reports/params/*.yaml``.

    The file is data: the files it names must lie inside ``root`` (default: the file's own
    folder; the command line's ``--data-root``), and its ``targeted_attack`` must be a
    synthesizer of :mod:`privlib.synth` (nothing is imported for it).
    """
    path = Path(path)
    params = read_yaml(path, "params file", "--params")
    fields = [*_FIELDS, *_settings()]
    unknown = sorted(map(str, set(params) - set(fields)))
    if unknown:
        raise PrivlibError(
            f"params file {str(path)!r} has unknown field(s) {unknown}; the fields are {sorted(fields)}."
        )
    AuditSpec.check_settings(
        {name: value for name, value in params.items() if name not in _FIELDS}, f"params file {str(path)!r}"
    )
    for name, value in params.items():
        valid, wanted = _FIELDS.get(name, (None, None))
        if valid is not None and value is not None and not valid(value):
            raise PrivlibError(
                f"params file {str(path)!r}: `{name}` must be {wanted}, got {type(value).__name__} {value!r}."[
                    :300
                ]
            )
    if "dataset" in params:
        if params["dataset"] not in DATASETS:
            raise PrivlibError(
                f"params file {str(path)!r} names unknown dataset {params['dataset']!r}; the "
                f"bundled datasets are {list(DATASETS)}."
            )
        for name in ("n_train", "synthesizers"):
            if params.get(name) is None:
                raise PrivlibError(f"params file {str(path)!r} needs `{name}` with `dataset`.")
        _check_entries(params["synthesizers"], f"params file {str(path)!r}")
    else:
        if "train" not in params or "synthetic" not in params:
            raise PrivlibError(
                f"params file {str(path)!r} needs either `dataset` or both `train` and `synthetic`."
            )
    _check_synthesizer_name(params, f"params file {str(path)!r}")
    _under_root(params, path, None if root is None else Path(root))
    for name in (*TABLE_FIELDS, "schema_file"):  # files named relative to the params file
        value = params.get(name)
        if isinstance(value, list):
            params[name] = [str(path.parent / v) for v in value]
        elif value is not None:
            params[name] = str(path.parent / value)
    return params


def materialise(params: dict, folder) -> dict:
    """Make the tables a bundled-dataset params file describes and write them as CSV files.

    The training and holdout rows are a seeded split of the bundled dataset
    (:func:`privlib.datasets.sample_split`); each synthetic table is sampled, seeded, from a
    synthesizer of :mod:`privlib.synth` fitted on the training rows. Returns the audit arguments
    with file paths (``train``, ``synthetic``, ``holdout``) and the recipe for the provenance.
    """
    from privlib import synth

    folder = Path(folder)
    seed = params.get("seed", 2026)
    data = load_dataset(params["dataset"])
    for name in ("keys", "sensitive"):  # checked now, before the synthesizers take their time
        if params.get(name):
            check_columns(data, params[name], name, params["dataset"])
    n_holdout = params.get("n_holdout") or 0
    train, holdout = sample_split(data, params["n_train"], n_holdout, random_state=seed)
    paths = {"train": folder / "train.csv", "synthetic": [], "holdout": None}
    train.to_csv(paths["train"], index=False)
    if n_holdout:
        paths["holdout"] = folder / "holdout.csv"
        holdout.to_csv(paths["holdout"], index=False)
    specs = params["synthesizers"]
    _check_entries(specs, "the audit's recipe")
    # Each file is named after its synthesizer: the name the report's comparison shows.
    for spec, label in zip(specs, file_labels([Path(x["method"]) for x in specs])):
        model = synth.make(spec["method"], **(spec.get("params") or {})).fit(train)
        target = folder / f"{label}.csv"
        model.sample(spec.get("n"), random_state=seed).to_csv(target, index=False)
        paths["synthetic"].append(target)
    recipe = {k: params[k] for k in ("dataset", "n_train", "n_holdout", "synthesizers") if k in params}
    recipe["seed"] = seed
    return {
        "train": str(paths["train"]),
        "synthetic": [str(p) for p in paths["synthetic"]],
        "holdout": str(paths["holdout"]) if paths["holdout"] else None,
        "recipe": recipe,
    }
