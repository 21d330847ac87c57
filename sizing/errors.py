"""Problems found in input files, and the error of an output that cannot be written."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One located problem: `file:line:col: level: path: message` (line and col 1-based)."""

    file: str
    line: int
    col: int
    path: str
    message: str
    level: str = "error"

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        what = f"{self.path}: {self.message}" if self.path else self.message
        return f"{where}: {self.level}: {what}"

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.col, "path": self.path,
                "level": self.level, "message": self.message}


class OutputError(Exception):
    """An output could not be written (exit 3)."""
