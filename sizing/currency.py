"""The scenario's currency: every amount is in it (no conversion). Inside the engine money is one unit, `USD` in
the unit texts; outputs show the scenario's code or symbol in its place."""

from __future__ import annotations

import contextvars
import functools
import re
from typing import Any, Callable

# ISO 4217 codes in use (2026), the funds and precious metals left out; and MOP and TOP, which read as units here
# (mega- and tera-operations).
CODES = frozenset("""
AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF
CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG
HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA
MKD MMK MNT MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TRY TTD TWD TZS UAH UGX
USD UYU UZS VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG
""".split())
# Symbols a reader knows without doubt; any other currency is shown by its code ("CHF 1,200").
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "KRW": "₩"}
INTERNAL = "USD"              # the money unit's name inside the engine and the formula graph
CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("currency", default="USD")


def code() -> str:
    """The currency of the scenario being rendered."""
    return _current.get()


def symbol() -> str:
    """What precedes an amount: '$', '€', or the code and a space ('CHF ')."""
    c = code()
    return SYMBOLS.get(c, f"{c} ")


def units(text: str) -> str:
    """A unit text with the engine's money unit named in the scenario's currency ('USD/month' -> 'EUR/month')."""
    return text.replace(INTERNAL, code()) if code() != INTERNAL and isinstance(text, str) else text


def internal(text: str) -> str:
    """A unit text in the scenario's currency with its money named as the engine's ('EUR/kWh' -> 'USD/kWh')."""
    return text.replace(code(), INTERNAL) if code() != INTERNAL else text


SIGNS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY"}      # symbols an amount may be written with
SIGN = "[" + "".join(map(re.escape, SIGNS)) + "]"              # any of them, as a regular expression


def codes_in(text: str) -> set[str]:
    """The currency codes a value's text names ('2.50 EUR/hour' -> {'EUR'}; '$2/hour' -> {'USD'}, '£' GBP, '€' EUR,
    '¥' JPY)."""
    return {c for c in CODE.findall(text) if c in CODES} | {code for sign, code in SIGNS.items() if sign in text}


def of_scenario(scn: Any) -> str:
    meta = getattr(scn, "meta", {})
    return meta["currency"].value if "currency" in meta else "USD"


def rendered(fn: Callable) -> Callable:
    """Run a renderer whose first argument is a Results in its scenario's currency."""
    @functools.wraps(fn)
    def inner(results, *args, **kwargs):
        token = _current.set(of_scenario(results.scenario))
        try:
            return fn(results, *args, **kwargs)
        finally:
            _current.reset(token)
    return inner


def label(text: str) -> str:
    """A display unit in the scenario's currency: '$/month' -> '€/month' or 'CHF/month'; 'USD/J' -> 'EUR/J'."""
    if isinstance(text, str) and text.startswith("$"):
        return symbol().strip() + text[1:]
    return units(text)
