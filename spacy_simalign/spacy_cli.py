"""`python -m spacy simalign COMMAND ...`: the package's commands under spaCy's command line.

spaCy imports every `spacy_cli` entry point before each of its commands (`spacy train` too), so
this module imports nothing but spaCy's public CLI app (`spacy.cli.app`, loaded by then); the
parser, the `--help` texts and the exit statuses are `python -m spacy_simalign`'s, imported only
when `simalign` runs."""

import typer
from spacy.cli import app

HELP = "spacy-simalign's commands: align two texts."  # click cuts the line that `spacy --help` shows at 45


@app.command(
    "simalign",
    help=HELP,
    # Every word after `simalign` goes to our own parser as it was given: --help, the command's
    # options, and a `--` after the command name (click would drop it once it starts parsing).
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False},
    add_help_option=False,
)
def simalign_cli(ctx: typer.Context) -> None:
    """Run `python -m spacy_simalign`'s main on the words after `simalign`; exit with its status."""
    from .__main__ import leave, main

    leave(main(ctx.args, prog="python -m spacy simalign"))
