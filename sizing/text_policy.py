"""The text policy every user string meets, however it is written (raw in the file or as an escape in quotes)."""

from __future__ import annotations

import re
import unicodedata

# What no user text may hold, however it is written: control characters other than tab and line feed (a carriage
# return, ESC, the C1 set), unpaired surrogates, noncharacters (which a workbook cannot store), line and paragraph
# separators and the bidirectional overrides that make a line read otherwise than it is.
_NONCHARACTERS = "\ufdd0-\ufdef\ufffe\uffff" + "".join(f"{chr(p * 0x10000 + 0xfffe)}{chr(p * 0x10000 + 0xffff)}"
                                                      for p in range(1, 17))
_INVISIBLE = "\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069" + _NONCHARACTERS
FORBIDDEN = re.compile(f"[\x00-\x08\x0b-\x1f{_INVISIBLE}]")
# The same in a file's raw text, where a carriage return ends a line (CRLF files) and YAML reads NEL and the
# line and paragraph separators as line breaks (which would fold them into a space): refused there too.
FORBIDDEN_RAW = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f{_INVISIBLE}]")


def character_name(char: str) -> str:
    category = unicodedata.category(char)
    return "a control character" if category == "Cc" else "a noncharacter" if category == "Cn" else \
        "an unpaired surrogate" if category == "Cs" else "a line separator" if category in ("Zl", "Zp") else \
        "a direction override"
