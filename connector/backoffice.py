"""Deprecated alias of the back-office families, which have a module each now:
:mod:`connector.persons`, :mod:`connector.items`, :mod:`connector.inventory`,
:mod:`connector.sale_notes`, :mod:`connector.quotations` (and :mod:`connector.sheets`,
:mod:`connector.lists` for what they share)."""

from connector import inventory, items, lists, persons, quotations, sale_notes, sheets
from connector.deprecation import moved_module

__getattr__ = moved_module(
    __name__,
    persons,
    items,
    inventory,
    sale_notes,
    quotations,
    sheets,
    lists,
    renamed={"Listing": "RecordList"},
)
