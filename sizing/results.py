"""The engine's typed results beyond quantities: the decision, its options and failures, and crossovers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Failure:
    """A requirement an option does not meet, on one workload, read from one check quantity."""

    requirement: str            # the word of the scenario (fits_memory, meets_targets, cloud, ...) or "computable"
    workload: str
    quantity: str               # the check (fits, meets_targets, available_cloud) or the objective not computed

    @property
    def deployment(self) -> bool:
        return self.quantity.startswith("available_") or self.quantity == "owned_fleet"

    @property
    def cloud_service(self) -> bool:
        """A service option (rented on demand as traffic needs, the API) asked to be on premises or at the edge."""
        return self.quantity.endswith("_in_cloud")

    @property
    def memory(self) -> bool:
        return self.quantity == "fits"

    @property
    def not_computed(self) -> bool:
        return self.requirement == "computable"


VARIANT_WORDS = {"busy_hours": "on demand as traffic needs", "api": "hosted API"}


@dataclass(frozen=True)
class Option:
    """One option considered by a decision: a device's fleet, that device rented on demand as the traffic needs, or a
    hosted API. Ranked when it meets every requirement, else listed unranked with what it fails."""

    device: str                 # the device (for the API: the pair that carries its price)
    value: float | None         # the objective; None when it cannot be computed (or is not priced)
    failures: tuple[Failure, ...]
    rank: int | None            # 1 = recommended; None: fails a requirement, so it is not ranked
    variant: str = "fleet"      # fleet | busy_hours | api
    quantity: str = ""          # the quantity that gives the value
    measured_by: str = ""       # a benchmark record that measures this fleet: the value is its measurement
    predicted: float | None = None      # then the engine's prediction of the same figure
    workload: str = ""          # the workload whose figures price it: the decision's, or an alternative of it
    alternative: str = ""       # that alternative's id ("" for the workload as given)

    @property
    def passes(self) -> bool:
        return not self.failures

    @property
    def id(self) -> str:
        """The option's name: the device for its fleet, 'h100 busy hours', 'api'; an alternative's id follows the
        device ('h100 fp8', 'h100 fp8 busy hours')."""
        device = f"{self.device} {self.alternative}" if self.alternative else self.device
        return {"fleet": device, "api": "api"}.get(self.variant, f"{device} busy hours")

    @property
    def label(self) -> str:
        """The option in words: 'h100', 'h100, fp8', 'h100, on demand as traffic needs', 'hosted API'."""
        device = f"{self.device}, {self.alternative}" if self.alternative else self.device
        if self.variant == "fleet":
            return device
        return VARIANT_WORDS["api"] if self.variant == "api" else f"{device}, {VARIANT_WORDS[self.variant]}"

    def as_dict(self) -> dict[str, Any]:
        return {"option": self.id, "device": None if self.variant == "api" else self.device,
                "workload": self.workload or None, "alternative": self.alternative or None,
                "variant": self.variant, "quantity": self.quantity, "value": self.value,
                "measured_by": self.measured_by or None, "predicted": self.predicted, "passes": self.passes,
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
    recommendation: str | None  # the recommended option's id
    id: str = "decision"
    budget: dict = field(default_factory=dict)      # monthly, capex: the budget each option must keep within
    title: str = ""             # the decision's own title, if the scenario gives one

    def option(self, oid: str) -> Option | None:
        return next((o for o in self.options if o.id == oid), None)

    @property
    def best(self) -> Option | None:
        return self.option(self.recommendation) if self.recommendation else None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title or None, "objective": self.objective, "quantity": self.quantity, "unit": self.unit,
                "workload": self.workload, "maximise": self.maximise, "require": list(self.require),
                "budget": dict(self.budget), "ranking": [o.as_dict() for o in self.options],
                "recommendation": self.recommendation}


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
