"""Deprecated alias of :mod:`analysis.register`: the analyst's figures moved beside the connector."""

from analysis import register as _moved
from connector.deprecation import moved_module

__getattr__ = moved_module(__name__, _moved)
