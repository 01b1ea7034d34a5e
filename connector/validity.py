"""The analyst's client of SUNAT's validity API (``docs/validity.md``): :class:`ValidityClient` with its
:class:`ValidityEndpoint` and typed errors. It is :mod:`sunat.validity_client`, shared with the service."""

from __future__ import annotations

from sunat.validity_client import (
    CredentialsRefused,
    QueryRefused,
    Throttled,
    ValidityClient,
    ValidityEndpoint,
    ValidityError,
    ValidityUnavailable,
)

__all__ = [
    "CredentialsRefused",
    "QueryRefused",
    "Throttled",
    "ValidityClient",
    "ValidityEndpoint",
    "ValidityError",
    "ValidityUnavailable",
]
