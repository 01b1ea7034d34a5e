"""Deprecated alias of :mod:`analysis.alerts`: the analyst's figures moved beside the connector."""

from analysis import alerts as _moved
from connector.deprecation import moved_module

__getattr__ = moved_module(__name__, _moved)
