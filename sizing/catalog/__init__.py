"""The built-in catalog: devices, models, published measurements and the device-family defaults."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

HERE = Path(__file__).parent
FAMILY_FIELDS = ("efficiency", "bandwidth_efficiency", "train_efficiency", "layer_overhead", "memory_reserve")
# Compute efficiencies differ with the width of the arithmetic: 8-bit and narrower kernels reach a smaller
# share of their (doubled) peak. The family defaults give these figures twice: `<name>` and `<name>_8bit`.
BY_WIDTH = ("efficiency", "train_efficiency")
NARROW_BYTES = 1.0


def default_name(name: str, arithmetic_bytes: float) -> str:
    """The defaults entry of figure `name` for arithmetic on values of that many bytes."""
    return f"{name}_8bit" if name in BY_WIDTH and arithmetic_bytes <= NARROW_BYTES else name


def _read(name: str) -> dict:
    """A catalog data file, parsed by libyaml where PyYAML has it (ten times faster; these files are ours)."""
    return yaml.load((HERE / name).read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@lru_cache(maxsize=1)
def family_defaults() -> dict[str, dict[str, dict]]:
    """Per device family (gpu, tpu, cpu, npu, accelerator): each default figure with its evidence."""
    return _read("defaults.yaml")["families"]


@lru_cache(maxsize=1)
def measurements() -> list[dict]:
    """The published measurements, each with its source."""
    return _read("measurements.yaml")["measurements"]


@lru_cache(maxsize=1)
def independent() -> list[dict]:
    """Published measurements found after the defaults were chosen, by a reviewer who had not seen the code, in the
    same form: an out-of-sample check that informs no default (independent.yaml)."""
    return _read("independent.yaml")["measurements"] if (HERE / "independent.yaml").exists() else []


@lru_cache(maxsize=1)
def accuracy_runs() -> tuple[dict, ...]:
    """Each published run's device, category and measured / predicted speed (accuracy.yaml)."""
    path = HERE / "accuracy.yaml"
    return tuple(_read("accuracy.yaml")["runs"]) if path.exists() else ()


def device_runs(categories: tuple[str, ...] = ()) -> dict[str, list[float]]:
    """Per catalog device: the measured / predicted speed of its published runs (of those categories, if given)."""
    out: dict[str, list[float]] = {}
    for run in accuracy_runs():
        if not categories or run["category"] in categories:
            out.setdefault(run["device"], []).append(run["speed"])
    return out


def within(categories: tuple[str, ...], share: float) -> tuple[int, int]:
    """Of the published runs of those categories, (how many came within `share` of the predicted speed either way
    (1 / (1 + share) to 1 + share), how many there are)."""
    speeds = [run["speed"] for run in accuracy_runs() if run["category"] in categories]
    return sum(1 / (1 + share) <= x <= 1 + share for x in speeds), len(speeds)
