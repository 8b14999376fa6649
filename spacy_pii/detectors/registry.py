"""The extension points: registries of detectors and validators that other packages fill.

Two `catalogue <https://github.com/explosion/catalogue>`_ registries, the mechanism spaCy's
own registries use, each read from an entry-point group as well, so an installed package
adds to them without being imported:

- ``detectors`` (entry points ``spacy_pii_detectors``): a name maps to a function that takes
  no argument and returns a :class:`~spacy_pii.detectors.base.Detector`. ``pii_rules`` runs
  the detectors named in its ``detectors`` setting besides its own.
- ``validators`` (entry points ``spacy_pii_validators``): a name maps to a function
  ``str -> bool`` that confirms a matched slice. A user pattern names one, and its hits
  score 1.0 only when the validator says yes (the package's score contract).

In a package's ``pyproject.toml``::

    [project.entry-points.spacy_pii_detectors]
    "acme.employee_id" = "acme_pii:make_employee_id_detector"

Pure Python: no spaCy.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import catalogue

from ..errors import ConfigError
from .base import Detector

detectors = catalogue.create("spacy_pii", "detectors", entry_points=True)
validators = catalogue.create("spacy_pii", "validators", entry_points=True)


def get_detector(name: str) -> Detector:
    """Build the registered detector ``name``.

    Raises:
        ConfigError: nothing is registered under ``name``, or it built no detector.
    """
    try:
        factory = detectors.get(name)
    except catalogue.RegistryError:
        known = sorted(detectors.get_all())
        raise ConfigError(f"no detector is registered as {name!r}; registered: {known}") from None
    detector = factory()
    if not isinstance(detector, Detector):
        raise ConfigError(f"the detector registered as {name!r} has no id, types and find()")
    return detector


def get_validator(name: str) -> Callable[[str], bool]:
    """The registered validator ``name``.

    Raises:
        ConfigError: nothing is registered under ``name``.
    """
    try:
        return validators.get(name)
    except catalogue.RegistryError:
        known = sorted(validators.get_all())
        raise ConfigError(f"no validator is registered as {name!r}; registered: {known}") from None


@validators.register("luhn")
def luhn(value: str) -> bool:
    """The Luhn check digit (ISO/IEC 7812-1 Annex B) over the ASCII digits of ``value``.

    Letters and separators are skipped, so ``EMP-79927398713`` checks ``79927398713``.
    """
    from .payment import luhn_valid

    return luhn_valid("".join(char for char in value if "0" <= char <= "9"))


@validators.register("iban")
def iban(value: str) -> bool:
    """ISO 13616 structure and ISO 7064 MOD-97-10, ignoring spaces."""
    from .payment import iban_valid

    return iban_valid(value.replace(" ", "").upper())


@validators.register("ip_address")
def ip_address(value: str) -> bool:
    """An IPv4 or IPv6 address, by :func:`ipaddress.ip_address`."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True
