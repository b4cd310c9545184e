"""One exception for bad input, so every entry point can print one line and exit 2, and one
for a run ended by SIGTERM."""


class Terminated(BaseException):
    """SIGTERM, turned into an exception so that a run ends as on Ctrl+C: partial output kept,
    a note on how to resume, one line `error: terminated`."""


class InputError(ValueError):
    """Bad user input, located by file and line: str() is the one-line message."""

    def __init__(self, message: str, path: str = None, line: int = None):
        self.path, self.line, self.reason = path, line, message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(where + message)
