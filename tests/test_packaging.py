"""pyproject.toml is the one source of dependencies (environment.yml names the same ones) and lists
every package the wheel ships."""

import re
from pathlib import Path

import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {_name(r) for r in project["dependencies"]}
    wanted |= {_name(r) for r in project["optional-dependencies"]["all"]}
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = {_name(d) for d in env["dependencies"] if isinstance(d, str)} - {"python", "pip"}
    assert conda == wanted, (
        f"only in environment.yml: {sorted(conda - wanted)}; only in pyproject: {sorted(wanted - conda)}"
    )
    assert "python=3.11" in env["dependencies"]


def test_all_extra_covers_every_user_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    everything = {_name(r) for r in extras["all"]}
    for extra in ("course", "report", "test"):
        missing = {_name(r) for r in extras[extra]} - everything
        assert not missing, f"extra {extra!r} has {missing} that 'all' lacks"


def test_ci_runs_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make report" in readme


def test_every_package_of_privlib_is_listed_for_the_wheel():
    # setuptools ships only the packages pyproject.toml lists
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "privlib").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert {"privlib", "privlib.membership", "privlib.render"} <= found  # the walk sees packages
    assert sorted(found - listed) == []
