"""``python -m privlib``: the ``privlib`` command."""

from privlib.cli import command

command()
