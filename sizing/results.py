"""The engine's typed results beyond quantities: the decision, its options and failures, and crossovers."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Failure:
    """A requirement an option does not meet, on one workload, read from one check quantity."""

    requirement: str            # the word of the scenario (fits_memory, meets_targets, cloud, ...) or "computable"
    workload: str
    quantity: str               # the check (fits, meets_targets, available_cloud) or the objective not computed

    @property
    def deployment(self) -> bool:
        return self.quantity.startswith("available_")

    @property
    def memory(self) -> bool:
        return self.quantity == "fits"

    @property
    def not_computed(self) -> bool:
        return self.requirement == "computable"


@dataclass(frozen=True)
class Option:
    """One device considered by the decision: ranked when it meets every requirement, else listed unranked
    with what it fails."""

    device: str
    value: float | None         # the objective; None when it cannot be computed
    failures: tuple[Failure, ...]
    rank: int | None            # 1 = recommended; None: fails a requirement, so it is not ranked

    @property
    def passes(self) -> bool:
        return not self.failures

    def as_dict(self) -> dict[str, Any]:
        return {"device": self.device, "value": self.value, "passes": self.passes,
                "failures": [asdict(f) for f in self.failures], "rank": self.rank}


@dataclass(frozen=True)
class Decision:
    """Options ranked by an objective on one workload, with the requirements each must meet."""

    objective: str              # as written (a quantity id or an objective word)
    quantity: str               # the quantity it means for the workload's kind
    unit: str
    workload: str
    maximise: bool
    require: tuple[str, ...]
    options: tuple[Option, ...]
    recommendation: str | None

    def option(self, device: str) -> Option | None:
        return next((o for o in self.options if o.device == device), None)

    @property
    def best(self) -> Option | None:
        return self.option(self.recommendation) if self.recommendation else None

    def as_dict(self) -> dict[str, Any]:
        return {"objective": self.objective, "quantity": self.quantity, "unit": self.unit,
                "workload": self.workload, "maximise": self.maximise, "require": list(self.require),
                "ranking": [o.as_dict() for o in self.options], "recommendation": self.recommendation}


@dataclass(frozen=True)
class Crossover:
    """Where, along a swept (or searched) parameter, something changes for a workload.

    `faster` crossovers: from `at` on, device `faster` beats `slower` on `quantity`.
    `compute_bound` crossovers: the first swept value at which `device`'s decode step is compute-bound.
    """

    kind: str                   # "faster" | "compute_bound"
    workload: str
    parameter: str
    at: float
    quantity: str | None = None
    faster: str | None = None
    slower: str | None = None
    device: str | None = None
    between: tuple[str, ...] = ()           # the two devices compared, in the scenario's order

    def as_dict(self) -> dict[str, Any]:
        if self.kind == "faster":
            return {"kind": self.kind, "workload": self.workload, "parameter": self.parameter,
                    "quantity": self.quantity, "between": list(self.between), "at": self.at,
                    "from_here_faster": self.faster}
        return {"kind": self.kind, "workload": self.workload, "parameter": self.parameter, "device": self.device,
                "at": self.at}
