"""Telling customers from suppliers on real tenants, whose person lists do not say which a row is.

Real tenants filter ``GET /api/persons/{type}/records`` with ``name LIKE %x% OR (number LIKE %x% AND
type = ?)`` (``scopeWhereFilterRecordsApi`` of ``app/Models/Tenant/Person.php`` in Pro9 and Tukifac):
the ``OR`` binds first, so every person whose *name* matches comes back whatever its type, and the rows
(``Person::getApiRowResource``) carry no type. Two searches of the same code bases have mirror filters:

* ``GET /api/document/search-customers?input=x``: ``name LIKE x OR (number LIKE x AND customers)``
  (``app/Http/Controllers/Tenant/Api/MobileController.php@searchCustomers``);
* ``GET /api/purchases/search-suppliers?input=x``: ``number LIKE x OR (name LIKE x AND suppliers)``
  (``modules/Purchase/Http/Controllers/Api/PurchaseController.php@searchSuppliers``).

So a probe text in a person's name and not in its number tells its type by whether the suppliers' search
for it returns that person; a probe in its number and not its name, by whether the customers' search
does. :func:`classify` tries the user's own search text first, then vowels and digits, one search per
probe (answered whole, no pages), until every row has its type. MySQL's ``LIKE`` ignores case and
accents; :func:`fold` does the same before comparing.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["PROBES", "classify", "fold"]

#: The texts tried after the search itself: vowels (in almost every name, in no RUC or DNI), then digits.
PROBES = ("a", "e", "o", "i", "u", *"0123456789")

#: Ids of the persons one search returns for a probe text.
Search = Callable[[str], set[int]]


def fold(text: Any) -> str:
    """Lower case without accents, as MySQL's ``utf8mb4_unicode_ci`` compares (``Ñ`` stays ``n``)."""
    decomposed = unicodedata.normalize("NFKD", str(text or ""))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def classify(
    rows: Sequence[Mapping[str, Any]], search: str, customers: Search, suppliers: Search
) -> dict[int, str]:
    """The type (``"customers"`` or ``"suppliers"``) of each row's person, by its id; rows no probe
    could tell are left out. ``customers``/``suppliers`` run the two searches (callers memoize them)."""
    pending = {int(row["id"]): (fold(row.get("name")), fold(row.get("number"))) for row in rows}
    types: dict[int, str] = {}
    probes = ([search.strip()] if search.strip() else []) + list(PROBES)
    for probe in probes:
        if not pending:
            break
        key = fold(probe)
        by_name = [i for i, (name, number) in pending.items() if key in name and key not in number]
        by_number = [i for i, (name, number) in pending.items() if key in number and key not in name]
        if by_name:
            found = suppliers(probe)
            for person in by_name:
                types[person] = "suppliers" if person in found else "customers"
                del pending[person]
        if by_number:
            found = customers(probe)
            for person in by_number:
                types[person] = "customers" if person in found else "suppliers"
                del pending[person]
    return types
