"""The built-in catalog: devices, models, published measurements and the device-family defaults."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

HERE = Path(__file__).parent
FAMILY_FIELDS = ("efficiency", "bandwidth_efficiency", "train_efficiency", "layer_overhead", "memory_reserve")


@lru_cache(maxsize=1)
def family_defaults() -> dict[str, dict[str, dict]]:
    """Per device family (gpu, tpu, cpu, npu, accelerator): each default figure with its evidence."""
    return yaml.safe_load((HERE / "defaults.yaml").read_text())["families"]


@lru_cache(maxsize=1)
def measurements() -> list[dict]:
    """The published measurements, each with its source."""
    return yaml.safe_load((HERE / "measurements.yaml").read_text())["measurements"]
