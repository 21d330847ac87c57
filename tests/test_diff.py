"""`sizing diff`: the inputs that changed between two versions of a scenario, the headline figures they move and
the decisions they change, from two files or from a file and a git revision of it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from helpers import ROOT, results_of
from sizing.evaluate import evaluate
from sizing.render.format import human
from sizing.scenario import load_scenario

CLI = [sys.executable, "-c", "from sizing.cli import main; main()"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def sizing(*args: str, cwd=ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env=ENV, timeout=120)


def versions(tmp_path):
    text = (ROOT / "scenarios" / "capacity-chat-8b.yaml").read_text()
    assert "price: 2.50 USD/hour" in text
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("price: 2.50 USD/hour", "price: 5.00 USD/hour", 1))
    return tmp_path / "a.yaml", tmp_path / "b.yaml"


def test_diff_lists_the_changed_input_and_the_figures_and_decisions_it_moves(tmp_path):
    a, b = versions(tmp_path)
    done = sizing("diff", str(a), str(b), "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [(c["what"], c["before_text"], c["after_text"]) for c in out["inputs"]] == \
        [("devices.h100.price", "2.50 USD/hour", "5.00 USD/hour")]
    # the H100 fleet is costed as owned (cheaper than renting even before): no headline figure moves; renting it
    # on demand gets dearer, so the ranks move
    assert out["figures"] == []
    a_ranks = {o.id: o.rank for o in results_of("capacity-chat-8b").decision.options}
    b_ranks = {o.id: o.rank for o in evaluate(load_scenario(b)[0]).decision.options}
    [dc] = out["decisions"]
    assert dc["before"] == dc["after"] == "api"
    assert [tuple(x) for x in dc["ranks"]] == [(k, a_ranks.get(k), b_ranks.get(k))
                                               for k in dict.fromkeys([*a_ranks, *b_ranks])
                                               if a_ranks.get(k) != b_ranks.get(k)]
    assert ("h100 busy hours", 6, 9) in [tuple(x) for x in dc["ranks"]]     # sixth: batch 256 held all month ranks
    text = sizing("diff", str(a), str(b)).stdout
    assert text.startswith(f"{a} -> {b}\n\ninputs (1 changed):")
    for dc in out["decisions"]:          # the text names options by label (as evaluate does), the JSON by id too
        names = dict(dc["labels"])
        assert names["h100 busy hours"] == "h100, on demand as traffic needs" and names["api"] == "hosted API"
        assert f"decision {dc['decision']}: {names[dc['before']]} ({dc['before_value']}) -> {names[dc['after']]}" \
            in text
        assert "  h100, on demand as traffic needs: rank 6 -> 9" in text


def test_a_changed_recommendation_is_said(tmp_path):
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    (tmp_path / "a.yaml").write_text(text[:text.index("\nuncertainty:") + 1])
    (tmp_path / "b.yaml").write_text((tmp_path / "a.yaml").read_text().replace("price: 1.85 USD/hour", "price: 2.60 USD/hour"))
    done = sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"))
    assert done.returncode == 0, done.stderr
    # the MI300X at the batch sizing found for it, then the B200 at its own
    assert "decision chat: monthly_cost: mi300x, b21, on demand as traffic needs ($4,133/month) -> b200, b46, on " \
        "demand as traffic needs ($5,479/month)" in done.stdout.replace("\n  ", " ")   # as evaluate names them
    assert "RECOMMENDATION CHANGED" in done.stdout
    row = next(ln for ln in done.stdout.splitlines() if "chat / mi300x" in ln and "monthly_cost" in ln)
    assert row.split()[-4:] == ["$8,109/month", "$11,396/month", "+40.5", "%"]       # 6 devices at 2.60 vs 1.85


def test_the_same_scenario_twice_differs_in_nothing(tmp_path):
    a, _ = versions(tmp_path)
    done = sizing("diff", str(a), str(a))
    assert (done.returncode, done.stdout) == (0, f"{a} -> {a}\n  no input, figure or decision differs\n")


def test_diff_against_a_git_revision(tmp_path):
    a, b = versions(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "add", "a.yaml"], check=True)
    subprocess.run([*git, "-C", str(tmp_path), "commit", "-qm", "first"], check=True)
    a.write_text(b.read_text())
    done = sizing("diff", "a.yaml", "--git", "HEAD", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["before"], out["after"]) == ("a.yaml@HEAD", "a.yaml")
    assert [c["what"] for c in out["inputs"]] == ["devices.h100.price"]
    bad = sizing("diff", "a.yaml", "--git", "no-such-rev", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("sizing: error: a.yaml at no-such-rev: ")
    both = sizing("diff", "a.yaml", cwd=tmp_path)
    assert both.returncode == 2 and "give two scenarios, or one and --git REV" in both.stderr
    assert human(2.5 / 3600, "USD/s") == "$2.50/hour"


def test_settings_are_listed_and_a_device_dropped_from_compare_is_one_line(tmp_path):
    """The objective and the compared devices are changes too; a device compared on one side only is the compare
    line, not each of its inputs and figures as 'absent'; paths as the scenario language spells them."""
    text = (ROOT / "scenarios" / "capacity-chat-8b.yaml").read_text()
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("objective: monthly_cost", "objective: cost_per_million_tokens")
                                     + "compare: [l40s]\n")
    out = json.loads(sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--format", "json").stdout)
    assert [(c["what"], c["before_text"], c["after_text"]) for c in out["inputs"]] == [
        ("compare", "h100, l40s", "l40s"), ("decision.objective", "monthly_cost", "cost_per_million_tokens")]
    assert not any("/h100/" in c["what"] for c in out["figures"])
    [dc] = out["decisions"]
    assert dc["decision"] == "chat: monthly_cost -> cost_per_million_tokens"      # each side's value in its own terms


def test_an_input_an_alternative_follows_is_listed_once(tmp_path):
    text = (ROOT / "scenarios" / "chat-70b-fp8.yaml").read_text()
    assert text.count("batch: 16") == 1 and "bf16: {precision: bf16" in text       # the BF16 alternative follows it
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("batch: 16", "batch: 24"))
    out = json.loads(sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--format", "json").stdout)
    assert [c["what"] for c in out["inputs"]] == ["workloads.chat.batch"]
    assert any(c["what"].startswith("chat-bf16/") for c in out["figures"])           # its figures move all the same


def test_an_alternative_added_is_one_line_as_written_not_its_derived_inputs(tmp_path):
    """Adding `alternatives: {fp8: {precision: fp8}}` listed 'workloads.chat-fp8.bytes_per_value absent fp8' (an
    internal input of the derived workload); it is the alternative as written, and its figures still show."""
    text = (ROOT / "scenarios" / "capacity-chat-8b.yaml").read_text()
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("    batch: 32\n", "    batch: 32\n    alternatives:\n"
                                                  "      fp8: {precision: fp8, batch: 48}\n"))
    out = json.loads(sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--format", "json").stdout)
    inputs = [(c["what"], c["before_text"], c["after_text"]) for c in out["inputs"]]
    # the devices' FP8 rates (the catalog's, on both sides) and the 8-bit efficiency default are read, not changed
    assert inputs == [("workloads.chat.alternatives.fp8", "absent", "precision fp8, batch 48")]
    assert any(c["what"] == "chat-fp8/h100/step_time" and c["before"] is None for c in out["figures"])
    own = "    from: nvidia-h100-sxm5-80gb\n    compute: {fp8: 1500 TFLOP/s}\n"
    (tmp_path / "c.yaml").write_text(
        (tmp_path / "b.yaml").read_text().replace("    from: nvidia-h100-sxm5-80gb\n", own))
    assert own in (tmp_path / "c.yaml").read_text()
    out = json.loads(sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "c.yaml"), "--format", "json").stdout)
    assert ("devices.h100.compute.fp8", "absent", "1500 TFLOP/s") in [
        (c["what"], c["before_text"], c["after_text"]) for c in out["inputs"]]        # a figure the edit set: listed
    narrow = sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--width", "60").stdout
    assert max(map(len, narrow.splitlines())) <= 60 and narrow.count("  workload / device ") >= 2   # paged


def test_a_decision_no_change_moves_is_said_to_hold(tmp_path):
    """A new user cut the H100's price by 30 %: the figures moved, no decision did, and nothing said so."""
    text = (ROOT / "scenarios" / "pretrain-deadline.yaml").read_text()
    assert "price: 2.50 USD/hour" in text
    (tmp_path / "a.yaml").write_text(text)
    (tmp_path / "b.yaml").write_text(text.replace("price: 2.50 USD/hour", "price: 2.40 USD/hour", 1))
    done = sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"))
    assert done.returncode == 0, done.stderr
    best = results_of("pretrain-deadline").decision
    assert done.stdout.rstrip().endswith(f"decision pretrain: cost: unchanged, {best.best.label} "
                                         f"({human(best.best.value, 'USD')}); no option's rank moved")
    out = json.loads(sizing("diff", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--format", "json").stdout)
    assert out["decisions"] == [] and [d["after"] for d in out["unchanged"]] == [best.recommendation]
