"""Problems found in input files, each with a stable code, and the error of an output that cannot be written."""

from __future__ import annotations

from dataclasses import dataclass, field

# Every code a problem may carry and what it means (README "Problem codes" lists the same).
# Codes are stable across releases: tools filter on them, so rename none and reuse none.
CODES = {
    # the file
    "file-unreadable": "the file (or a file it names) cannot be read",
    "file-too-large": "the file is over 200 kB",
    "outside-folder": "a config:, record or device file outside the scenario's folder (`../../etc/passwd`): never read",
    "not-a-file": "a device, a pipe, a socket or a folder where a file belongs (`/dev/zero`, a FIFO): refused before it is opened",
    "bad-encoding": "the file is not UTF-8",
    "control-character": "a control character, an unpaired surrogate, a noncharacter, a line separator or a direction override in the file or a text",
    "line-break": "a line break in a text of one line (a name, an id, a title, a unit)",
    "empty-file": "the file has no content",
    # YAML
    "yaml-syntax": "the YAML cannot be parsed",
    "yaml-documents": "more than one YAML document in the file",
    "too-deep": "nesting deeper than 32 levels",
    "yaml-anchor": "an anchor (&name)",
    "yaml-alias": "an alias (*name)",
    "yaml-tag": "a tag (!!type, !name)",
    "yaml-merge": "a merge key (<<)",
    "yaml-duplicate-key": "a key given twice in one mapping",
    "yaml-key-not-text": "a mapping or a list used as a key",
    "yaml-ambiguous-key": "an unquoted key that YAML 1.1 reads as a boolean, number, null or date",
    "yaml-boolean": "yes, no, on, off, y or n where a number belongs (YAML 1.1 booleans)",
    "yaml-octal": "a number with a leading zero (YAML 1.1 octal)",
    "yaml-base60": "a number like 1:20 (YAML 1.1 base 60)",
    # numbers and units
    "not-a-number": "no number where one belongs",
    "not-decimal": "a hexadecimal, octal or binary number",
    "not-finite": "nan or infinity",
    "too-large": "a value too large to convert",
    "too-many-digits": "an integer of more than 15 significant digits",
    "not-an-integer": "a fraction where a whole number belongs",
    "unit-missing": "a number without a unit where a quantity belongs",
    "unit-unknown": "a unit that is not defined",
    "unit-syntax": "unit text that cannot be read",
    "unit-ambiguous": "Gb, Mb, Tb ...: bits or bytes?",
    "unit-dimension": "a unit of the wrong dimension (a memory size for a bandwidth)",
    # structure and values
    "wrong-shape": "a mapping, list or single value where another belongs",
    "unknown-key": "a key the language does not have here (with a did-you-mean)",
    "missing-field": "a required field is absent",
    "missing-value": "a key without a value",
    "empty-mapping": "no devices or no workloads, or an alternative that changes nothing",
    "duplicate-entry": "an id or a list entry given twice",
    "out-of-range": "a value below its minimum or above its maximum",
    "bad-enum": "a value outside the field's list of choices",
    "not-a-boolean": "something other than true or false",
    "bad-id": "an id with characters other than a-z 0-9 . _ -",
    "bad-date": "not a calendar date written YYYY-MM-DD",
    "text-too-long": "a text over 4,000 characters",
    # references and consistency
    "unknown-reference": "an id naming no device, model or workload of the scenario",
    "unknown-catalog-entry": "a `from:` naming no catalog entry",
    "unknown-quantity": "a decision objective that is no quantity",
    "objective-not-computed": "a decision objective not computed for the workloads ranked",
    "wrong-workload-kind": "a benchmark tied to a workload that is not a generate workload",
    "average-above-peak": "traffic.average above traffic.peak",
    "average-and-utilisation": "traffic.average and traffic.utilisation both given (one sets the other)",
    "parallel-mismatch": "a parallel layout that does not multiply to the devices it splits, or more pipeline "
                         "stages than the model has layers",
    "budget-not-applicable": "a budget the decided workload has no figure for (monthly for training, total for serving)",
    "currency-mismatch": "an amount in another currency than the scenario's (or a USD catalog price in another)",
    "final-needs-owner": "status: final without an owner to sign the decision",
    "over-context": "input and output tokens (less the last output token) beyond the model's context length (a warning)",
    "low-utilisation": "a planned maximum utilisation under 10 %, likelier a slip (0.8 % for 80 %) than a plan "
                       "(a warning)",
    "unused-field": "a field the entity's other fields make ignored: a LoRA share on a full training run, a "
                    "commitment discount under basis rent or own (a warning)",
    "large-lora-share": "a LoRA share above 10 % written as a bare number (0.5 for 0.5 %?) (a warning)",
    "uneven-heads": "a tensor-parallel degree that does not split the model's attention heads evenly (a warning)",
    "alternative-changes-demand": "an alternative that changes only what is asked (traffic, targets, tokens, "
                                  "deadline), ranked as if it met the same demand (a warning)",
    "sweep-one-field": "a sweep of no field or of more than two",
    "sweep-grid-too-large": "a two-field sweep of more than 400 cells",
    "bad-input-path": "an uncertainty range on a path that is no numeric field of a device, model or workload",
    "bad-range": "an uncertainty range of no known shape, out of order, or lognormal on a bounded field",
    # Hugging Face config.json
    "unsupported-architecture": "a state-space or recurrent model in config.json",
    "unknown-model-type": "a config.json model type without a parameter formula (estimated)",
    "text-config-only": "a multimodal config.json: only its language model is counted",
    # evaluation
    "missing-input": "a quantity left out, or priced at nothing, for want of an input (no rate at the precision, no "
                     "price, a hosted API without its input price ...)",
    "not-sold": "a purchase price on a device not sold for use on premises (a warning: owning it is not priced)",
    "nothing-swept": "no compared workload has the swept field",
    "beyond-domain": "devices working together span more than one scale-up domain, but the device has no network "
                     "figure: collectives between domains are counted at the scale-up rate (a warning)",
    "nothing-compared": "`compare` lists no device: no workload is evaluated",
    "does-not-fit": "without a `decision`, a workload that does not fit a compared device in memory: its speeds and "
                    "costs are printed for a replica that cannot run (a warning; with a decision the option is not "
                    "ranked and says why)",
    "range-unused": "an uncertainty range on an input no compared workload reads (a warning)",
    "range-excludes-value": "an uncertainty range that does not contain the scenario's own value (a warning)",
}


@dataclass(frozen=True, order=True)
class Problem:
    """One located problem: `file:line:col: level: path: message` (line and col 1-based), and its code."""

    file: str
    line: int
    col: int
    path: str
    message: str
    level: str = "error"
    code: str = field(default="", kw_only=True)     # one of CODES

    def __post_init__(self) -> None:
        if self.code and self.code not in CODES:
            raise ValueError(f"undocumented problem code '{self.code}'")

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        what = f"{self.path}: {self.message}" if self.path else self.message
        return visible(f"{where}: {self.level}: {what}")

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "column": self.col, "path": self.path,
                "level": self.level, "code": self.code, "message": self.message}


class OutputError(Exception):
    """An output could not be written (exit 3)."""


def visible(text: str) -> str:
    """`text` on one line as a terminal shows it: a character that is not printable (a line break, a carriage
    return, ESC, a direction override, a noncharacter) is written as its escape, so that quoted user text can
    neither start a line of its own nor move the cursor."""
    return text if text.isprintable() else "".join(c if c.isprintable() else _escape(c) for c in text)


def _escape(c: str) -> str:
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c) or \
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}")
