"""Writing outputs safely: atomic replace, never over an input, and a reproducible build date."""

from __future__ import annotations

import datetime as dt
import glob
import os
import tempfile
from pathlib import Path

from .errors import OutputError, visible
from .schema import Scenario


LAST_EPOCH = 253_402_300_799          # 9999-12-31 23:59:59 UTC, the last second a date can hold


def source_date_epoch() -> int | None:
    """SOURCE_DATE_EPOCH as the reproducible-builds specification defines it (seconds since 1970 in ASCII digits),
    None when unset or empty; a malformed value is a ValueError saying what would be right (the specification asks
    a build to stop on it rather than ignore it)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not epoch:
        return None
    if not (epoch.isascii() and epoch.isdigit()):
        raise ValueError(f"SOURCE_DATE_EPOCH is {visible(epoch[:40])!r}: expected whole seconds since 1970-01-01 "
                         "in the digits 0-9 and nothing else, e.g. 1700000000")
    if len(epoch) > 12 or int(epoch) > LAST_EPOCH:      # int() of thousands of digits is itself refused
        shown = f"{epoch[:20]}..." if len(epoch) > 12 else epoch
        raise ValueError(f"SOURCE_DATE_EPOCH is {shown}: beyond 9999-12-31 (at most {LAST_EPOCH})")
    return int(epoch)


def epoch_datetime() -> dt.datetime | None:
    """SOURCE_DATE_EPOCH as a (naive, UTC) date and time; None when unset."""
    epoch = source_date_epoch()
    return None if epoch is None else dt.datetime(1970, 1, 1) + dt.timedelta(seconds=epoch)


def build_datetime(scn: Scenario) -> dt.datetime:
    """The date stamped into outputs: SOURCE_DATE_EPOCH, else the scenario's date, else 2000-01-01."""
    epoch = epoch_datetime()
    if epoch is not None:
        return epoch
    if "date" in scn.meta:
        return dt.datetime.strptime(scn.meta["date"].value, "%Y-%m-%d")
    return dt.datetime(2000, 1, 1)


def build_date_words(scn: Scenario) -> str:
    """Where the date stamped into outputs comes from, for the provenance: said honestly, since it is not the
    clock (outputs are byte-identical across rebuilds)."""
    when = build_datetime(scn)
    if source_date_epoch() is not None:
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
    write_all([(Path(path), data)], inputs)


def overwrites_input(path: Path, inputs: tuple[str | Path, ...]) -> str | None:
    """Why `path` may not be written (it is one of `inputs`, also through a symlink), or None."""
    return next((f"{path}: refusing to overwrite an input file" for src in inputs if same_file(path, Path(src))), None)


def write_all(items: list[tuple[Path, bytes]], inputs: tuple[str | Path, ...] = ()) -> None:
    """Write every (path, data) or none: each is staged in a temporary file beside it and fsynced, and only when
    all are staged are they renamed into place (a full disk or a failed write leaves the previous outputs and no
    temporary file). Refuses to write over any of `inputs`; raises OutputError."""
    for path, _ in items:
        if refusal := overwrites_input(path, inputs):
            raise OutputError(refusal)
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in items:
            staged.append((stage(path, data), path))
        for tmp, path in staged:
            try:
                os.replace(tmp, path)
            except OSError as e:
                raise OutputError(f"{path}: cannot write: {e.strerror or e}") from None
    finally:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass                                  # renamed into place, as it should be


def stage(path: Path, data: bytes) -> str:
    """`data` in a temporary file beside `path`, fsynced: its name carries this process's id, so that another
    process writing the same output never takes it for one a killed render left."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob(f".{glob.escape(path.name)}.*.tmp"):   # left by a render that was killed
            if not alive(stale.name.removeprefix(f".{path.name}.").split(".")[0]):
                stale.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise OutputError(f"{path}: cannot write here: {e.strerror or e}") from None
    try:
        os.chmod(tmp, 0o666 & ~current_umask())      # mkstemp makes 0600; outputs are ordinary files
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return tmp
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"{path}: cannot write: {e.strerror or e}") from None
        raise


def alive(pid: str) -> bool:
    """Whether the process that made a temporary file still runs (a name without a process id is a killed
    render's of an earlier version: not alive)."""
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True                                   # it exists, owned by someone else
    return True
