"""Command-line subcommands, one module each. A module defines NAME, HELP,
add_arguments(parser) and run(args) -> exit status; `__main__` finds them all."""
