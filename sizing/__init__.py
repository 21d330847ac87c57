"""sizing: which hardware, how many, at what cost -- with the working shown."""

__version__ = "0.1.0"
