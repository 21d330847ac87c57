"""Every derived quantity of sizing, each defined once; importing this module registers them in order."""

from . import inputs  # noqa: F401
from . import device, matmul, generate, serving, traffic, forward, train_state, train, train_counts, benchmark  # noqa: F401
