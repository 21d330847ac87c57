"""What the report template receives: one typed, preformatted context."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """Preformatted cells; `align` is 'l' or 'r' per column; `mark` a row to emphasise."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    align: tuple[str, ...]
    mark: int | None = None
    caption: str = ""


@dataclass(frozen=True)
class Chart:
    caption: str
    uri: str            # an SVG data URI drawn by charts.py


@dataclass(frozen=True)
class Decision:
    title: str                        # what the decision settles (its title, else its workload's)
    device: str | None                # the recommended option, as the table names it
    device_name: str
    headline: str
    objective: str
    workload: str
    constraint: str
    reasons: tuple[str, ...]
    table: Table
    table_note: str
    fleet: str
    fleet_label: str                  # "Fleet" (the recommendation's) or the cheapest own fleet's, beside a service
    sensitivity: Sensitivity | None   # the recommendation with each assumption moved
    budget: str = ""                  # each budget, what the recommendation uses of it and what is left
    action: str = ""                  # page one in plain words: what to buy or rent, how many
    action_detail: str = ""           # the replicas, or the devices on average and at the peak
    figures: tuple[tuple[str, str], ...] = ()     # the recommendation's money (label, value)
    reason: str = ""                  # the decisive reason, for a non-engineer
    runner_up: str = ""               # the runner-up and the margin
    checked: tuple[str, ...] = ()     # the requirements every option was checked against
    changes: tuple[str, ...] = ()     # what would change the recommendation, inputs named in words
    more_changes: str = ""
    options: Table | None = None      # every option's money, requirements and risks
    options_note: str = ""
    risks: str = ""                   # the recommendation's risks, from data
    fallback: str = ""                # a service recommended: the cheapest option without it
    confidence: Confidence | None = None      # how sure: the draws of the scenario's uncertain inputs
    traffic: str = ""                 # ' at a peak of 5 requests/s, 2.5 on average': what the costs are for
    another: str = "Another batch"    # what the next two try: another batch (served work) or layout (training)
    batches: str = ""                 # where another batch or layout would cost less (the decision stays as stated)
    batch_flip: str = ""              # page one: another batch or layout would beat the recommendation
    slow: str = ""                    # robust as ranked, but its published runs' speed misses its deadline


@dataclass(frozen=True)
class InputGroup:
    entity: str
    source: str                                     # the source most of the entity's figures share
    rows: tuple[tuple[str, str, str, str], ...]     # field, value as written, meaning, source (blank: as above)


@dataclass(frozen=True)
class WorkloadSection:
    id: str
    title: str
    kind: str
    description: str
    inputs: tuple[InputGroup, ...]
    results: tuple[Table, ...]
    sweep_tables: tuple[Table, ...]
    charts: tuple[Chart, ...]
    grids: tuple[tuple[Chart | None, Table], ...] = ()      # two-field sweeps: a map and its table
    repeated: str = ""                                       # which inputs are as listed under an earlier section


@dataclass(frozen=True)
class Confidence:
    """How sure a recommendation is, from the draws of the scenario's uncertain inputs."""

    sentence: str                     # page one: each option's share of the draws it wins
    regret: str                       # what the recommendation costs on average against each draw's best
    drivers: str                      # the inputs that move the decision most, in words
    intro: str                        # what was drawn, how many times, the sampling error
    ranges: Table                     # each uncertain input: its range, its group
    options: Table                    # per option: wins, meets, the objective's percentiles
    options_note: str                 # the options that never qualify
    spread: Chart | None              # the options' objective over the draws
    driver_chart: Chart | None


@dataclass(frozen=True)
class Sensitivity:
    intro: str
    flips: tuple[str, ...]            # the first FLIPS_SHOWN changes that alter the recommendation
    more_flips: str                   # how many more there are, in words ("" when none)
    chart: Chart | None
    table: Table
    spread: str = ""                  # 'Where it holds, its monthly cost runs from $A (...) to $B (...).'


@dataclass(frozen=True)
class MethodEntry:
    quantity: str
    unit: str
    description: str
    formulas: tuple[str, ...]


@dataclass(frozen=True)
class MethodGroup:
    kind: str
    entries: tuple[MethodEntry, ...]


@dataclass(frozen=True)
class Provenance:
    tool: str
    file: str
    sha256: str
    built: str
    attachments: tuple[str, ...]
    renderers: str


@dataclass(frozen=True)
class Report:
    title: str
    owner: str
    date: str
    status: str
    description: str
    created: str                      # W3C date for the PDF metadata
    decisions: tuple[Decision, ...]
    together: str                     # several decisions: their recommendations' monthly cost and capital summed
    undecided: str                    # no decision: why (no objective applies, or none is computed)
    overview: tuple[Table, ...]       # key figures per workload, when there is no decision
    findings: tuple[str, ...]
    caveats: tuple[str, ...]
    workloads: tuple[WorkloadSection, ...]
    breakeven: tuple[str, ...]
    method: tuple[MethodGroup, ...]
    glossary: tuple[tuple[str, str, str], ...]
    warnings: tuple[str, ...]
    provenance: Provenance
    signoff: tuple[tuple[str, str], ...] = ()     # (role, name) per signer; a blank name is a line to sign
    constants: tuple[tuple[str, str, str], ...] = ()   # named constants in the formulas: name, value, meaning
    terms: tuple[tuple[str, str], ...] = ()       # the glossary: each technical term the report uses, explained
    currency: str = "USD"                         # the scenario's currency code
    limits: tuple[str, ...] = ()                  # what the model leaves out: common, then each kind's present
    trust: tuple[tuple[str, str, str, str, str], ...] = ()   # per group of published runs: count, median, range,
                                                             # held-out median (count)
    trust_words: str = ""                         # how many of those runs came within the close-call margin
    trust_apart: str = ""                         # the rows whose held-out runs came out apart from the rest

    @property
    def memo_lines(self) -> float:
        """About how many body lines page one takes (its boxes' texts over a line's characters, the headline and the
        figures as their share of lines): where they and the sign-off cannot share page one, the options follow the
        sign-off on page two instead of a page of their own (a page two holding the sign-off alone)."""
        return sum(memo_lines(d) for d in self.decisions)

    @property
    def memo_fits(self) -> bool:
        """Page one holds the boxes and the sign-off (Report.memo_lines, against what a page holds)."""
        return self.memo_lines <= MEMO_LINES

    @property
    def decision(self) -> Decision | None:
        return self.decisions[0] if self.decisions else None


MEMO_LINES = 36           # body lines page one holds beside the title block and the sign-off (measured: 33 fit, 38
#                           did not)
CHARS_PER_LINE = 112       # page one's box: 8.5 pt body text across its width
HEADLINE_CHARS = 48        # the recommendation's headline, in its large type, per line (2.2 body lines each)


def memo_lines(d: Decision) -> float:
    """A decision's box on page one, in body lines (Report.memo_lines)."""
    texts = [d.action_detail, d.reason, d.runner_up, d.budget, d.risks, d.fallback, d.batch_flip,
             "; ".join(d.checked)]
    if d.confidence is not None:
        texts += [f"{d.confidence.sentence} {d.confidence.regret}", d.confidence.drivers]
    if d.sensitivity is not None:
        texts += ["; ".join(d.changes) + d.more_changes + (d.sensitivity.spread or "")]
    body = sum(-(-len(t) // CHARS_PER_LINE) for t in texts if t)
    return body + 2.2 * -(-len(d.action) // HEADLINE_CHARS) + 6     # the label, the line it is for, the figures
