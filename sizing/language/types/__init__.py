"""Field types: each parses a scalar, names itself in messages, bounds data validation and emits its JSON Schema.

`base` (patterns, limits, the base class), `leaves` (scalars), `containers` (blocks, maps, lists, sweeps)."""

from .base import *  # noqa: F401,F403
from .leaves import *  # noqa: F401,F403
from .containers import *  # noqa: F401,F403
