"""Writing outputs safely: atomic replace, never over an input, and a reproducible build date."""

from __future__ import annotations

import datetime as dt
import glob
import os
import tempfile
from pathlib import Path

from .errors import OutputError
from .schema import Scenario


def build_datetime(scn: Scenario) -> dt.datetime:
    """The date stamped into outputs: SOURCE_DATE_EPOCH, else the scenario's date, else 2000-01-01."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).replace(tzinfo=None)
    if "date" in scn.meta:
        return dt.datetime.strptime(scn.meta["date"].value, "%Y-%m-%d")
    return dt.datetime(2000, 1, 1)


def build_date_words(scn: Scenario) -> str:
    """Where the date stamped into outputs comes from, for the provenance: said honestly, since it is not the
    clock (outputs are byte-identical across rebuilds)."""
    when = build_datetime(scn)
    if os.environ.get("SOURCE_DATE_EPOCH", "").strip().isdigit():
        return f"{when:%Y-%m-%d %H:%M} UTC, from SOURCE_DATE_EPOCH"
    if "date" in scn.meta:
        return (f"{when:%Y-%m-%d}, the scenario's date (not the clock: the same scenario gives the same bytes; set "
                f"SOURCE_DATE_EPOCH to stamp a build time)")
    return f"{when:%Y-%m-%d}, a fixed date (the scenario gives none and SOURCE_DATE_EPOCH is not set)"


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def write_atomic(path: str | Path, data: bytes, inputs: tuple[str | Path, ...] = ()) -> None:
    """Write data to path through a temporary file in the same folder, fsync, then rename.

    Refuses to write over any of `inputs` (also through a symlink); raises OutputError.
    """
    path = Path(path)
    for src in inputs:
        if same_file(path, Path(src)):
            raise OutputError(f"{path}: refusing to overwrite an input file")
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob(f".{glob.escape(path.name)}.*.tmp"):   # left by a render that was killed
            stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise OutputError(f"{path}: cannot write here: {e.strerror or e}") from None
    try:
        os.chmod(tmp, 0o666 & ~current_umask())      # mkstemp makes 0600; outputs are ordinary files
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"{path}: cannot write: {e.strerror or e}") from None
        raise
