"""Deprecated alias of :mod:`analysis.receivables`: the analyst's figures moved beside the connector."""

from analysis import receivables as _moved
from connector.deprecation import moved_module

__getattr__ = moved_module(__name__, _moved)
