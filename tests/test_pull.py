"""`sizing pull`: input cells changed in a workbook go back into the scenario YAML, comments and layout kept."""

import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

from helpers import ROOT
from sizing.evaluate import evaluate
from sizing.pull import apply, changes
from sizing.render.workbook import names_of, workbook_bytes
from sizing.scenario import load_scenario


def built(tmp_path: Path, name: str) -> tuple[Path, Path]:
    """A copy of a shipped scenario and its workbook, side by side."""
    src = tmp_path / f"{name}.yaml"
    shutil.copy(ROOT / "scenarios" / f"{name}.yaml", src)
    scn, _ = load_scenario(src)
    book = tmp_path / f"{name}.xlsx"
    book.write_bytes(workbook_bytes(evaluate(scn)))
    return src, book


def type_into(book: Path, key: str, value) -> None:
    """A reviewer types `value` into the Inputs cell of input `key` (column B of its row)."""
    scn, _ = load_scenario(book.with_suffix(".yaml"))
    name = names_of(evaluate(scn))[key]
    wb = openpyxl.load_workbook(book)
    (sheet, coord), = wb.defined_names[name].destinations
    row = int("".join(ch for ch in coord if ch.isdigit()))
    wb[sheet][f"B{row}"].value = value
    wb.save(book)


def pulled(src: Path, book: Path) -> tuple[list, str]:
    """The changes `sizing pull` finds in the workbook, and the scenario text with them made."""
    scn, _ = load_scenario(src)
    found = changes(evaluate(scn), book)
    return found, apply(src.read_text(), found)


def sizing(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from sizing.cli import main; main()", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_an_edited_price_goes_back_into_the_yaml_with_its_comments(tmp_path):
    src, book = built(tmp_path, "chat-70b-fp8")
    before = src.read_text()
    type_into(book, "device.mi300x.price", 2.40)
    type_into(book, "workload.chat.batch", 32)
    done = sizing("pull", str(book), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()[:2]) == [
        "devices.mi300x.price: 1.85 USD/hour -> 2.4 USD/hour  (public on-demand list price, 2025-01 (scenario line 36))",
        "workloads.chat.batch: 16 -> 32  (scenario line 49)"]
    assert done.stdout.splitlines()[2] == f"wrote {src}"
    after = src.read_text()
    assert after == before.replace("price: 1.85 USD/hour", "price: 2.4 USD/hour").replace(
        "    batch: 16\n", "    batch: 32\n")                     # nothing else moved: comments, order, layout
    assert "# does FP8 pay?" in after
    scn, problems = load_scenario(src)
    assert scn is not None and scn.devices["mi300x"].get("price") == pytest.approx(2.40 / 3600)
    again = sizing("pull", str(book), str(src), cwd=tmp_path)     # the workbook no longer matches the file
    assert again.returncode == 1 and "it was not built from" in again.stderr


def test_a_value_the_language_refuses_is_a_located_error_and_nothing_is_written(tmp_path):
    src, book = built(tmp_path, "capacity-chat-8b")
    before = src.read_text()
    type_into(book, "workload.chat.traffic.max_utilisation", 1.5)       # 150 %
    done = sizing("pull", str(book), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.endswith("capacity-chat-8b.yaml:48:75: error: workloads.chat.traffic.max_utilisation: must be "
                                "at most 100 %, got '150 %'\n")
    assert "Traceback" not in done.stderr
    assert src.read_text() == before


def test_a_catalog_value_is_added_to_its_entry(tmp_path):
    """The H100's memory bandwidth comes from the catalog: changed in the workbook, it is added under the device."""
    src, book = built(tmp_path, "capacity-chat-8b")
    type_into(book, "device.h100.memory_bandwidth", 3.0)
    found, text = pulled(src, book)
    assert [(c.path, c.new) for c in found] == [(("devices", "h100", "memory_bandwidth"), "3 TB/s")]
    src.write_text(text)
    scn2, problems = load_scenario(src)
    assert scn2 is not None, problems
    assert scn2.devices["h100"].get("memory_bandwidth") == 3.0e12


def test_dry_run_writes_nothing(tmp_path):
    src, book = built(tmp_path, "capacity-chat-8b")
    before = src.read_text()
    type_into(book, "device.h100.price", 3.0)
    done = sizing("pull", str(book), "--dry-run", cwd=tmp_path)
    assert done.returncode == 0 and "devices.h100.price: 2.50 USD/hour -> 3 USD/hour" in done.stdout
    assert src.read_text() == before


def test_an_alternatives_own_input_goes_back_under_the_alternative(tmp_path):
    src, book = built(tmp_path, "chat-70b-fp8")
    type_into(book, "workload.chat-bf16.devices.h100", 8)
    found, text = pulled(src, book)
    assert [(c.path, c.old, c.new) for c in found] == [
        (("workloads", "chat", "alternatives", "bf16", "devices", "h100"), "4", "8")]
    assert "bf16: {precision: bf16, devices: {h100: 8, h200: 2, gaudi3: 2}" in text


def test_a_purchase_typed_into_a_blank_cost_cell_becomes_a_costs_block(tmp_path):
    src, book = built(tmp_path, "chat-70b-fp8")
    type_into(book, "device.h200.costs.purchase", 30000)
    type_into(book, "device.h200.costs.electricity", 0.15)
    found, text = pulled(src, book)
    assert [str(c) for c in found] == [
        "devices.h200.costs.purchase: (blank) -> 30000 USD  (not given: blank, not offered that way)",
        "devices.h200.costs.electricity: (blank) -> 0.15 USD/kWh  (not given: blank, read as 0 (no running cost))"]
    assert "  h200:\n    from: nvidia-h200-sxm-141gb\n    price: 2.25 USD/hour\n    field_sources: {price: \"public " \
           "on-demand list price, 2026-06\"}\n    costs:\n      purchase: 30000 USD\n      electricity: 0.15 USD/kWh\n" \
           in text
    assert "# H100s may be bought: 3-year write-off" in text
    (tmp_path / "edited.yaml").write_text(text)
    scn, problems = load_scenario(tmp_path / "edited.yaml")
    assert scn is not None, problems
    h200 = evaluate(scn).pair("chat", "h200")
    assert h200.values["own_rate"] > 0 and h200.values["cost_basis"] == "own"
