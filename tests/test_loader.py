"""Tests for the hardened YAML loader: refusals, exact positions, raw scalar text."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT
from sizing.errors import Problem
from sizing.loader import MAX_BYTES, MAX_DEPTH, Mapping, Scalar, Sequence, load_file, load_text

ANCHOR = "anchors and aliases are not allowed; write the value out in full"
EMPTY = "the file is empty; a scenario starts with 'sizing: 1'"
MULTI = "more than one YAML document; keep one scenario per file"

BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""

SCENARIO = """\
sizing: 1
name: "Chat service"
devices:
  gpu:
    memory: 80 GB
    links: {count: 8, speed: 900 GB/s}
benchmarks:
  - model: llama
    rate: 7e9
"""


def found(text: str | bytes) -> list[tuple[int, int, str, str]]:
    """The problems of loading `text` as (line, col, path, message)."""
    _, problems = load_text(text, "s.yaml")
    return [(p.line, p.col, p.path, p.message) for p in problems]


def load_ok(text: str | bytes):
    node, problems = load_text(text, "s.yaml")
    assert problems == []
    return node


def at(node, line: int, col: int) -> bool:
    return (node.line, node.col) == (line, col)


# --- anchors, aliases, tags, merge keys -------------------------------------------------


def test_alias_bomb_is_refused_without_expanding():
    start = time.perf_counter()
    node, problems = load_text(BILLION_LAUGHS, "bomb.yaml")
    assert time.perf_counter() - start < 0.1
    assert node is not None and len(node.get("i").items) == 0
    assert len(problems) == 9 + 8 * 9  # every anchor and every alias
    assert (problems[0].line, problems[0].col, problems[0].path) == (1, 4, "a")
    assert (problems[-1].line, problems[-1].col, problems[-1].path) == (9, 32, "i[8]")
    assert {p.message for p in problems} == {ANCHOR}


def test_anchor_is_refused_at_the_anchor():
    assert found("a:\n  b: &x 1\n") == [(2, 6, "a.b", ANCHOR)]


def test_alias_is_refused_at_the_alias():
    assert found("a: 1\nb: [2, *x]\n") == [(2, 8, "b[1]", ANCHOR)]


def test_explicit_tags_are_refused():
    text = "run: !!python/object/apply:os.system ['rm -rf /']\nnote: !custom hi\ncount: !!str 3\n"
    assert found(text) == [
        (1, 6, "run", "tags are not allowed ('!!python/object/apply:os.system'); remove the tag"),
        (2, 7, "note", "tags are not allowed ('!custom'); remove the tag"),
        (3, 8, "count", "tags are not allowed ('!!str'); remove the tag"),
    ]


def test_merge_key_is_refused_and_dropped():
    node, problems = load_text("base:\n  <<: {a: 1}\n  b: 2\n", "s.yaml")
    assert [(p.line, p.col, p.path, p.message) for p in problems] == [
        (2, 3, "base", "merge keys ('<<') are not allowed; write the fields out")]
    assert node.get("base").keys() == ["b"]


def test_quoted_merge_key_is_plain_text():
    assert load_ok("'<<': 1\n").keys() == ["<<"]


# --- keys -----------------------------------------------------------------------------


def test_duplicate_keys_report_each_second_occurrence():
    text = "devices:\n  gpu:\n    name: H100\n    memory: 80 GB\n    memory: 94 GB\n" \
           "  gpu2: {}\nname: a\nname: b\n"
    assert found(text) == [
        (5, 5, "devices.gpu.memory", "duplicate key 'memory' (first given at line 4); keep one"),
        (8, 1, "name", "duplicate key 'name' (first given at line 7); keep one"),
    ]


def test_duplicate_key_keeps_the_first_value():
    node, _ = load_text("a: 1\na: 2\n", "s.yaml")
    assert node.get("a").text == "1" and node.keys() == ["a"]


def test_duplicate_key_in_a_list_item_has_an_indexed_path():
    assert found("benchmarks:\n  - {a: 1}\n  - {a: 1, a: 2}\n") == [
        (3, 12, "benchmarks[1].a", "duplicate key 'a' (first given at line 3); keep one")]


def test_keys_yaml_1_1_reads_as_non_text_are_refused_with_a_hint():
    assert found("no: 1\n1: 2\n~: 3\n1.5: 4\n2026-12-02: 5\nfine: 6\n") == [
        (1, 1, "no", "key 'no' is read as a boolean by YAML 1.1 tools; quote it: \"no\""),
        (2, 1, "1", "key '1' is read as a number by YAML 1.1 tools; quote it: \"1\""),
        (3, 1, "~", "key '~' is read as null by YAML 1.1 tools; quote it: \"~\""),
        (4, 1, "1.5", "key '1.5' is read as a number by YAML 1.1 tools; quote it: \"1.5\""),
        (5, 1, "2026-12-02",
         "key '2026-12-02' is read as a date by YAML 1.1 tools; quote it: \"2026-12-02\""),
    ]


def test_quoted_keys_are_text():
    assert load_ok("'no': 1\n\"1\": 2\n").keys() == ["no", "1"]


def test_complex_keys_are_refused():
    assert found("? [a, b]\n: c\nd: {[e]: f}\n") == [
        (1, 3, "", "keys must be plain text"),
        (3, 5, "d", "keys must be plain text"),
    ]


# --- caps -----------------------------------------------------------------------------


def test_nesting_of_32_levels_is_accepted():
    node = load_ok("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    for _ in range(MAX_DEPTH - 1):
        node = node.items[0]
    assert node == Sequence((), 1, MAX_DEPTH)


def test_nesting_40_levels_of_mappings_is_refused():
    text = "".join("  " * i + "a:\n" for i in range(40)) + "  " * 40 + "x\n"
    assert found(text) == [(33, 65, ".".join(["a"] * 32), "nesting deeper than 32 levels")]


def test_nesting_10000_brackets_is_refused_without_recursion():
    assert found("[" * 10_000 + "]" * 10_000) == [(1, 33, "[0]" * 32, "nesting deeper than 32 levels")]


def test_size_cap_counts_bytes_before_parsing():
    assert found(b"#" * (MAX_BYTES + 1)) == [
        (1, 1, "", "the file is 200,001 bytes; the limit is 200,000")]
    # A str is measured in UTF-8 bytes: 100,001 two-byte characters.
    assert found("\u00e9" * 100_001) == [(1, 1, "", "the file is 200,002 bytes; the limit is 200,000")]


def test_size_cap_on_a_file(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_bytes(b"#" * 1_234_567)
    message = "the file is 1,234,567 bytes; the limit is 200,000"
    assert load_file(path) == (None, [Problem(str(path), 1, 1, "", message, code="file-too-large")])


# --- encoding and characters ------------------------------------------------------------


def test_invalid_utf8_is_located_at_the_first_bad_byte():
    assert found(b"a: 1\nname: caf\xc3\xa9 \xff\n") == [
        (2, 12, "", "invalid UTF-8 (byte 0xff); save the file as UTF-8")]


def test_utf8_bom_is_accepted():
    assert load_ok(b"\xef\xbb\xbfa: 1\n") == load_ok("\ufeffa: 1\n") == load_ok("a: 1\n")
    assert load_ok(b"\xef\xbb\xbfa: 1\n").get("a") == Scalar("1", False, 1, 4)


def test_control_characters_are_refused():
    assert found("a: 1\nb: x\x00y\n") == [(2, 5, "", "control character U+0000 is not allowed; remove it")]
    assert found("a: \x1b[0m\n") == [(1, 4, "", "control character U+001B is not allowed; remove it")]


# --- documents ------------------------------------------------------------------------


def test_two_documents_are_refused_at_the_second():
    assert found("---\na: 1\n---\nb: 2\n") == [(3, 1, "", MULTI)]
    assert found("a: 1\n---\nb: 2\n") == [(2, 1, "", MULTI)]


def test_content_after_document_end_is_a_second_document():
    assert found("a: 1\n...\nb: 2\n") == [(3, 1, "", MULTI)]
    assert load_ok("a: 1\n...\n# trailing comment\n").keys() == ["a"]


def test_empty_file_is_refused():
    for text in ("", "# only a comment\n\n", "---\n", b""):
        assert load_text(text, "s.yaml") == (None, [Problem("s.yaml", 1, 1, "", EMPTY, code="empty-file")])


# --- syntax errors ----------------------------------------------------------------------


def test_syntax_error_is_located_at_the_problem():
    assert found("sizing: 1\nname: a: b\n") == [
        (2, 8, "", "mapping values are not allowed here; quote text that contains ': ' "
                   '(e.g. title: "Sizing: which GPU?")')]


def test_syntax_error_names_where_the_construct_started():
    assert found("a: [1, 2\nb: 3\n") == [
        (2, 2, "", "expected ',' or ']', but got ':' (while parsing a flow sequence at line 1); close the [...] "
                   "list on the line where it starts, or check the commas")]


def test_tab_indentation_is_located():
    assert found("a:\n\tb: 1\n") == [
        (2, 1, "", "found character '\\t' that cannot start any token (while scanning for the next token); "
                   "indent with spaces: YAML does not allow tabs")]


# --- the tree ---------------------------------------------------------------------------


def test_marks_of_keys_and_values():
    root = load_ok(SCENARIO)
    assert at(root, 1, 1) and root.keys() == ["sizing", "name", "devices", "benchmarks"]
    keys = dict((k.text, k) for k, _ in root.entries)
    assert at(keys["devices"], 3, 1) and at(keys["benchmarks"], 7, 1)
    assert root.get("name") == Scalar("Chat service", True, 2, 7)
    gpu = root.get("devices").get("gpu")
    assert at(root.get("devices"), 4, 3) and at(gpu, 5, 5)
    assert gpu.get("memory") == Scalar("80 GB", False, 5, 13)
    links = gpu.get("links")
    assert at(links, 6, 12)
    assert links.entries == (
        (Scalar("count", False, 6, 13), Scalar("8", False, 6, 20)),
        (Scalar("speed", False, 6, 23), Scalar("900 GB/s", False, 6, 30)),
    )
    bench = root.get("benchmarks")
    assert isinstance(bench, Sequence) and at(bench, 8, 3) and at(bench.items[0], 8, 5)
    assert bench.items[0].get("rate") == Scalar("7e9", False, 9, 11)


def test_scalars_keep_their_raw_text():
    root = load_ok("a: 7e9\nb: 017\nc: 1:20\nd: no\ne: ~\nf: null\ng: 2026-12-02\nh:\n")
    assert [v.text for _, v in root.entries] == ["7e9", "017", "1:20", "no", "~", "null", "2026-12-02", ""]
    assert root.get("h") == Scalar("", False, 8, 3)


def test_quoted_flag():
    root = load_ok("a: plain\nb: 'single'\nc: \"d\\tq\"\nd: |\n  lit\ne: >-\n  fold\nf: ''\n")
    assert [(v.text, v.quoted) for _, v in root.entries] == [
        ("plain", False), ("single", True), ("d\tq", True), ("lit\n", True), ("fold", True), ("", True)]


def test_mapping_get_and_keys():
    root = load_ok("a: 1\nb: [x]\n")
    assert root.keys() == ["a", "b"]
    assert root.get("b") == Sequence((Scalar("x", False, 2, 5),), 2, 4)
    assert root.get("missing") is None


def test_pretty_printed_json_loads():
    record = {"sizing": 1, "devices": [{"gpu": "H100", "memory": 80.5, "ok": True, "spare": None}],
              "notes": "caf\u00e9 \"quoted\"", "empty": {}}
    root = load_ok(json.dumps(record, indent=2))
    assert isinstance(root, Mapping) and root.keys() == ["sizing", "devices", "notes", "empty"]
    device = root.get("devices").items[0]
    assert [(v.text, v.quoted) for _, v in device.entries] == [
        ("H100", True), ("80.5", False), ("true", False), ("null", False)]
    assert device.get("memory") == Scalar("80.5", False, 6, 17)
    assert root.get("notes").text == "caf\u00e9 \"quoted\""
    assert load_ok(json.dumps(record)).keys() == root.keys()


# --- files ------------------------------------------------------------------------------


def test_load_file_reads_and_names(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_bytes(b"a: [1]\nb: 2\nb: 3\n")
    node, problems = load_file(path)
    assert node.keys() == ["a", "b"]
    assert problems == [Problem(str(path), 3, 1, "b", "duplicate key 'b' (first given at line 2); keep one",
                                code="yaml-duplicate-key")]
    assert load_file(str(path), "shown.yaml")[1][0].file == "shown.yaml"


def test_load_file_missing_path(tmp_path):
    path = tmp_path / "nope.yaml"
    message = "cannot read the file: No such file or directory"
    assert load_file(path) == (None, [Problem(str(path), 1, 1, "", message, code="file-unreadable")])


def test_load_file_on_a_directory(tmp_path):
    message = "cannot read the file: it is a folder; name a regular file"
    assert load_file(tmp_path, "dir") == (None, [Problem("dir", 1, 1, "", message, code="not-a-file")])


# --- totality ---------------------------------------------------------------------------


def check_total(data: str | bytes) -> None:
    node, problems = load_text(data, "fuzz.yaml")
    assert node is None or isinstance(node, (Scalar, Mapping, Sequence))
    assert isinstance(problems, list)
    assert all(isinstance(p, Problem) and p.line >= 1 and p.col >= 1 for p in problems)


# Fragments that reach deep into PyYAML's scanner and parser more often than random text does.
FRAGMENTS = list("ab1:-[]{},&*!?|>'\"#~<\n\t \\%@`.") + ["---", "...", "  ", "- "]
YAMLISH = st.lists(st.sampled_from(FRAGMENTS)).map("".join)


@settings(deadline=500, max_examples=300)
@given(st.one_of(st.text(), YAMLISH))
def test_load_text_is_total_on_any_text(text):
    check_total(text)


@settings(deadline=500, max_examples=300)
@given(st.binary())
def test_load_text_is_total_on_any_bytes(data):
    check_total(data)


def test_libyaml_builds_the_same_tree_as_pyyaml_from_every_shipped_file():
    """libyaml parses first; from every shipped YAML file, catalog and scenarios, it builds the tree PyYAML's
    parser builds, positions and quoting included."""
    from sizing import loader
    from sizing.entries import CATALOG_DIR

    if loader.FAST is None:
        pytest.skip("PyYAML without libyaml")
    files = sorted(CATALOG_DIR.glob("*.yaml")) + sorted((ROOT / "scenarios").rglob("*.yaml"))
    assert len(files) > 15
    for f in files:
        text = f.read_text()
        assert loader._Composer(f.name, loader.FAST).load(text) == loader._Composer(f.name).load(text), f.name


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(list("ab1 :-[]{},#'\"|>&*!?%.\n\t") + ["é", "x: ", "\n  ", "- ", "...", "---"]),
                max_size=30).map("".join))
def test_where_libyaml_and_pyyaml_both_read_a_text_they_build_the_same_tree(text):
    """The loader takes libyaml's tree only when it finds no problem, else PyYAML's parser's result: whatever
    both parsers read, they read alike (positions and quoting included), and a text with a problem gets PyYAML's
    messages."""
    from sizing import loader

    if loader.FAST is None:
        pytest.skip("PyYAML without libyaml")
    composer = loader._Composer("t.yaml", loader.FAST)
    fast = composer.load(text)
    slow = loader._Composer("t.yaml").load(text)
    taken = not fast[1] and not composer.deferred
    if taken and not slow[1]:
        assert fast == slow
    assert load_text(text, "t.yaml") == (fast if taken else slow)
