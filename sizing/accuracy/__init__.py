"""How far to trust sizing's defaults: every published measurement predicted at the defaults.

    python -m sizing.accuracy              the accuracy table (markdown), as in the README
    python -m sizing.accuracy --choose     choose the device-family defaults from the calibration records and
                                           write sizing/catalog/defaults.yaml with their evidence

Each record becomes a one-pair scenario (its device from the catalog, its model, precision, batch,
lengths and parallel layout; what the source leaves out is stated in the record's `assume:` block or in
records.ASSUME) evaluated at the device family's defaults; a record with `skip: why` is not predicted.
Records whose index within their category is 2 mod 3 are held out: no default was chosen from them.
"""

from .records import predict
from .table import Row, markdown, rows, summary

__all__ = ["Row", "markdown", "predict", "rows", "summary"]
