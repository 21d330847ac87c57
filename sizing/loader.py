"""Hardened YAML loading: a tree of text scalars, mappings and sequences that keep 1-based positions."""

from __future__ import annotations

import codecs
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.resolver import Resolver

from sizing.errors import Problem
from sizing.text_policy import FORBIDDEN, FORBIDDEN_RAW, character_name  # noqa: F401  (FORBIDDEN: re-exported)

MAX_BYTES = 200_000        # ~0.8 s of parsing at worst; scenarios are a few kB
MAX_DEPTH = 32

ANCHOR_MESSAGE = "anchors and aliases are not allowed; write the value out in full"
MERGE_MESSAGE = "merge keys ('<<') are not allowed; write the fields out"
EMPTY_MESSAGE = "the file is empty; a scenario starts with 'sizing: 1'"
MULTI_DOC_MESSAGE = "more than one YAML document; keep one scenario per file"

# What a plain key turns into under YAML 1.1 (PyYAML's resolver), as said in the hint.
_YAML11_KINDS = {
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:timestamp": "a date",
}
_CORE_TAG = "tag:yaml.org,2002:"
_RESOLVER = Resolver()
# The line breaks PyYAML counts, so our own positions agree with its marks.
_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
# Parser messages for common slips, and what would fix them.
SYNTAX_HINTS = (
    ("found character '\\t' that cannot start any token", "indent with spaces: YAML does not allow tabs"),
    ("mapping values are not allowed here", "quote text that contains ': ' (e.g. title: \"Sizing: which GPU?\")"),
    ("expected <block end>", "indent this line like the lines above it, with the same number of spaces"),
    ("could not find expected ':'", "a key needs ': ' after it; quote text that spans lines"),
    ("expected ',' or '}'", "close the {...} mapping on the line where it starts, or check the commas"),
    ("expected ',' or ']'", "close the [...] list on the line where it starts, or check the commas"),
)


@dataclass(frozen=True)
class Scalar:
    """A scalar's text exactly as written (quotes and escapes resolved), never converted by YAML 1.1."""

    text: str
    quoted: bool
    line: int
    col: int


@dataclass(frozen=True)
class Mapping:
    """Key/value entries in file order; keys are unique text scalars."""

    entries: tuple[tuple[Scalar, Node], ...]
    line: int
    col: int

    def get(self, key: str) -> Node | None:
        return next((value for k, value in self.entries if k.text == key), None)

    def keys(self) -> list[str]:
        return [k.text for k, _ in self.entries]


@dataclass(frozen=True)
class Sequence:
    """Items in file order."""

    items: tuple[Node, ...]
    line: int
    col: int


Node = Scalar | Mapping | Sequence


def read_file(path: str | os.PathLike, name: str | None = None) -> tuple[bytes | None, list[Problem]]:
    """A file's bytes, read with a bound: a device, a pipe or a socket is refused before it is opened (reading
    /dev/zero or a FIFO would never end), and at most one byte past the cap is read."""
    name = str(path) if name is None else name
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "not a regular file (a device, a pipe or a socket)"
            return None, [Problem(name, 1, 1, "", f"cannot read the file: it is {what}; name a regular file",
                                  code="not-a-file")]
        with open(path, "rb") as file:
            data = file.read(MAX_BYTES + 1)
            size = max(os.fstat(file.fileno()).st_size, len(data))
    except OSError as err:
        message = f"cannot read the file: {err.strerror or err}"
        return None, [Problem(name, 1, 1, "", message, code="file-unreadable")]
    if size > MAX_BYTES:
        return None, [_too_big(name, size)]
    return data, []


def beside(base: Path, text: str) -> Path | None:
    """A file a scenario names (`config:`, a record's `file:`, `from: FILE.yaml`), relative to the scenario's folder:
    its path when it lies in that folder or below once links are followed, else None (`../../etc/passwd`, an
    absolute path elsewhere, a link out of the folder)."""
    target = base / text
    try:
        inside = target.resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):
        return None
    return target if inside else None


def outside(name: str) -> str:
    return (f"'{name}' is outside the scenario's folder; a file the scenario names must lie in its folder or "
            "below")


def load_file(path: str | os.PathLike, name: str | None = None) -> tuple[Node | None, list[Problem]]:
    """Read and load one file; read errors become a problem at 1:1."""
    data, problems = read_file(path, name)
    if data is None:
        return None, problems
    return load_text(data, str(path) if name is None else name)


FAST = getattr(yaml, "CSafeLoader", None)        # libyaml, where PyYAML was built with it


def load_text(data: bytes | str, name: str) -> tuple[Node | None, list[Problem]]:
    """Load YAML text into nodes; never raises, returns (tree or None, problems). libyaml parses first (ten times
    faster than PyYAML's own parser; where both read a text they build the same tree, positions included). A text
    with any problem, or with an empty value (which the two parsers place apart), is parsed again by PyYAML's
    parser, whose refusals, messages and positions are the ones reported: the fast path changes no message. (libyaml reads a few texts PyYAML refuses, such as a tab after a value.)"""
    text, problem = _to_text(data, name)
    if problem is not None:
        return None, [problem]
    if FAST is not None:
        fast = _Composer(name, FAST)
        node, problems = fast.load(text)
        if not problems and not fast.deferred:
            return node, problems
    return _Composer(name).load(text)


def _to_text(data: bytes | str, name: str) -> tuple[str, Problem | None]:
    """Check size, decode strict UTF-8 without a BOM, and refuse characters YAML cannot hold."""
    size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
    if size > MAX_BYTES:
        return "", _too_big(name, size)
    if isinstance(data, str):
        text, problem = data.removeprefix("\ufeff"), None
    else:
        text, problem = _decode(bytes(data), name)
    return text, problem or _bad_character(text, name)


def _too_big(name: str, size: int) -> Problem:
    message = f"the file is {size:,} bytes; the limit is {MAX_BYTES:,}"
    return Problem(name, 1, 1, "", message, code="file-too-large")


def _decode(data: bytes, name: str) -> tuple[str, Problem | None]:
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as err:
        before = data[: err.start].decode("utf-8")
        line, col = _line_col(before, len(before))
        message = f"invalid UTF-8 (byte 0x{data[err.start]:02x}); save the file as UTF-8"
        return "", Problem(name, line, col, "", message, code="bad-encoding")


def _bad_character(text: str, name: str) -> Problem | None:
    # Checked here rather than by PyYAML's reader, whose error carries an index, not a line.
    match = FORBIDDEN_RAW.search(text)
    if match is None:
        return None
    char = match.group()
    kind = "control character" if unicodedata.category(char) == "Cc" else "character"
    line, col = _line_col(text, match.start())
    return Problem(name, line, col, "", f"{kind} U+{ord(char):04X} is not allowed; remove it",
                   code="control-character")


def _line_col(text: str, index: int) -> tuple[int, int]:
    breaks = list(_BREAK.finditer(text, 0, index))
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, index - line_start + 1


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Slow(Exception):
    """A text the fast parser leaves to PyYAML's (an empty value, whose position the two parsers place apart)."""


class _Stop(Exception):
    """A problem after which parsing further would only cost time (nesting too deep)."""


@dataclass
class _Open:
    """A collection whose children are still arriving from the parser."""

    start: yaml.CollectionStartEvent
    path: str
    items: list = field(default_factory=list)
    count: int = 0  # children delivered, dropped ones included, so list indexes match the file
    key: Scalar | None = None  # the accepted key waiting for its value; None drops the value
    first_lines: dict[str, int] = field(default_factory=dict)

    @property
    def is_mapping(self) -> bool:
        return isinstance(self.start, yaml.MappingStartEvent)

    def child_path(self) -> str:
        if not self.is_mapping:
            return f"{self.path}[{self.count}]"
        expecting_value = self.count % 2 == 1
        return _join(self.path, self.key.text) if expecting_value and self.key else self.path

    def close(self) -> Node:
        line, col = _position(self.start.start_mark)
        if self.is_mapping:
            return Mapping(tuple(self.items), line, col)
        return Sequence(tuple(self.items), line, col)


def _position(mark: yaml.Mark) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


class _Composer:
    """Builds nodes from parser events with an explicit stack (no recursion), reporting what we refuse.

    Aliases are never resolved, so an alias bomb costs no more than its own text.
    """

    def __init__(self, name: str, parser: type = yaml.SafeLoader):
        self.name, self.parser = name, parser
        self.problems: list[Problem] = []
        self.deferred = False                  # the fast parser left the text to PyYAML's

    def load(self, text: str) -> tuple[Node | None, list[Problem]]:
        loader = None
        try:
            loader = self.parser(text)
            return self._stream(loader), self.problems
        except _Slow:
            self.deferred = True
            return None, self.problems
        except _Stop:
            return None, self.problems
        except yaml.MarkedYAMLError as err:
            self.problems.append(self._syntax_problem(err))
            return None, self.problems
        except Exception as err:  # PyYAML is not total on garbage; the loader must be
            message = f"cannot read the YAML: {err}"
            self.problems.append(Problem(self.name, 1, 1, "", message, code="yaml-syntax"))
            return None, self.problems
        finally:
            if loader is not None:
                loader.dispose()

    def _stream(self, loader: yaml.SafeLoader) -> Node | None:
        loader.get_event()  # StreamStart
        if loader.check_event(yaml.StreamEndEvent):
            return self._empty()
        loader.get_event()  # DocumentStart
        root = self._document(loader)
        loader.get_event()  # DocumentEnd
        if isinstance(root, Scalar) and root.text == "" and not root.quoted:
            root = self._empty()
        self._check_single_document(loader)
        return root

    def _check_single_document(self, loader: yaml.SafeLoader) -> None:
        try:
            if loader.check_event(yaml.StreamEndEvent):
                return
            mark = loader.peek_event().start_mark
        except yaml.MarkedYAMLError as err:
            # PyYAML wants '---' after '...', so content there is a parse error: still a second document.
            mark = err.problem_mark
        self._report(mark, "", MULTI_DOC_MESSAGE, "yaml-documents")

    def _empty(self) -> None:
        self.problems.append(Problem(self.name, 1, 1, "", EMPTY_MESSAGE, code="empty-file"))
        return None

    def _document(self, loader: yaml.SafeLoader) -> Node | None:
        stack: list[_Open] = []
        while True:
            event = loader.get_event()
            if isinstance(event, yaml.CollectionEndEvent):
                node = stack.pop().close()
            else:
                path = stack[-1].child_path() if stack else ""
                if isinstance(event, yaml.CollectionStartEvent):
                    stack.append(self._open(event, path, len(stack)))
                    continue
                node = self._leaf(event, path)
            if not stack:
                return node
            self._deliver(stack[-1], node)

    def _open(self, event: yaml.CollectionStartEvent, path: str, depth: int) -> _Open:
        self._check_properties(event, path)
        if depth >= MAX_DEPTH:
            self._report(event.start_mark, path, f"nesting deeper than {MAX_DEPTH} levels", "too-deep")
            raise _Stop
        return _Open(event, path)

    def _leaf(self, event: yaml.ScalarEvent | yaml.AliasEvent, path: str) -> Scalar | None:
        """A scalar, or None for an alias (reported, never followed)."""
        if isinstance(event, yaml.AliasEvent):
            self._report(event.start_mark, path, ANCHOR_MESSAGE, "yaml-alias")
            return None
        self._check_properties(event, path)
        bad = FORBIDDEN.search(event.value)
        if bad is not None:                     # often written as an escape in a quoted scalar ("\e", "\uFFFE")
            char = bad.group()
            self._report(event.start_mark, path, f"contains {character_name(char)} (U+{ord(char):04X}); remove it "
                         "(an escape in quotes, such as \\e or \\x85, counts)", "control-character")
        if not event.value and not event.style and self.parser is not yaml.SafeLoader:
            raise _Slow            # an empty value: libyaml places it elsewhere than PyYAML (`{a: }`), which decides
        return Scalar(event.value, bool(event.style), *_position(event.start_mark))   # libyaml: '' when plain

    def _check_properties(self, event: yaml.NodeEvent, path: str) -> None:
        if event.anchor is not None:
            self._report(event.start_mark, path, ANCHOR_MESSAGE, "yaml-anchor")
        # The parser leaves tag None unless one is written, so any tag here is explicit.
        if event.tag is not None:
            tag = "!!" + event.tag.removeprefix(_CORE_TAG) if event.tag.startswith(_CORE_TAG) else event.tag
            self._report(event.start_mark, path, f"tags are not allowed ('{tag}'); remove the tag", "yaml-tag")

    def _deliver(self, parent: _Open, node: Node | None) -> None:
        parent.count += 1
        if not parent.is_mapping:
            if node is not None:
                parent.items.append(node)
        elif parent.count % 2 == 1:
            parent.key = self._accept_key(parent, node)
        elif parent.key is not None and node is not None:
            parent.items.append((parent.key, node))

    def _accept_key(self, mapping: _Open, key: Node | None) -> Scalar | None:
        """The key if its entry should be kept, else None (the problem is reported)."""
        if key is None:
            return None
        if not isinstance(key, Scalar):
            self._report_at(key, mapping.path, "keys must be plain text", "yaml-key-not-text")
            return None
        if key.text == "<<" and not key.quoted:
            self._report_at(key, mapping.path, MERGE_MESSAGE, "yaml-merge")
            return None
        path = _join(mapping.path, key.text)
        if key.text in mapping.first_lines:
            first = mapping.first_lines[key.text]
            self._report_at(key, path, f"duplicate key '{key.text}' (first given at line {first}); keep one",
                            "yaml-duplicate-key")
            return None
        mapping.first_lines[key.text] = key.line
        if not key.quoted:
            self._check_yaml11_key(key, path)
        return key

    def _check_yaml11_key(self, key: Scalar, path: str) -> None:
        # Other tools would read such a key as a bool/number/null, not the text we keep.
        tag = _RESOLVER.resolve(yaml.ScalarNode, key.text, (True, False))
        kind = _YAML11_KINDS.get(tag)
        if kind is not None:
            message = f"key '{key.text}' is read as {kind} by YAML 1.1 tools; quote it: \"{key.text}\""
            self._report_at(key, path, message, "yaml-ambiguous-key")

    def _syntax_problem(self, err: yaml.MarkedYAMLError) -> Problem:
        """PyYAML's words, located, with a hint for the mistakes people make most."""
        mark = err.problem_mark or err.context_mark
        message = err.problem or err.context or "invalid YAML"
        if err.problem and err.context:
            where = err.context_mark
            same_place = where is None or (where.line, where.column) == (mark.line, mark.column)
            context = err.context if same_place else f"{err.context} at line {where.line + 1}"
            message = f"{message} ({context})"
        line, col = _position(mark) if mark else (1, 1)
        hint = next((h for key, h in SYNTAX_HINTS if key in message), "")
        return Problem(self.name, line, col, "", f"{message}; {hint}" if hint else message, code="yaml-syntax")

    def _report(self, mark: yaml.Mark, path: str, message: str, code: str) -> None:
        self.problems.append(Problem(self.name, *_position(mark), path, message, code=code))

    def _report_at(self, node: Node, path: str, message: str, code: str) -> None:
        self.problems.append(Problem(self.name, node.line, node.col, path, message, code=code))
