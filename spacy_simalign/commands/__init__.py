"""Command-line subcommands, one module each. A module defines NAME, HELP,
add_arguments(parser) and run(args) -> exit status; `__main__` finds them all."""


def crf_weights(path=None) -> str:
    """The CRF weights folder a command was given (`rank --model`, `adapt --base`; default the
    shipped weights), checked to exist: a missing one is the usual one-line error."""
    import os

    from ..aligners.crf.aligner import DEFAULT_WEIGHTS
    from ..core.errors import InputError

    folder = path or str(DEFAULT_WEIGHTS)
    if not os.path.isdir(folder):
        raise InputError("CRF weights folder not found", folder)
    return folder
