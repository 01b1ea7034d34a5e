"""The compiled reader of a declared body (``fields.compile_object``) reads as the field-by-field one.

Every ``Object`` declared in the domain modules is read, compiled and field by field
(``Object.read_slowly`` with nested objects read the same way), over generated bodies: well-formed ones,
and ones with odd values in random places (blanks, padded and lower-case codes, numbers as text, floats,
out-of-range integers, booleans, wrong types, missing keys). Values, errors and missing fields must agree.
"""

from __future__ import annotations

import copy
import importlib
import pkgutil
import random
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest

import facturador.domain
from facturador.domain import fields
from facturador.domain.fields import Boolean, Code, Date, List, Number, Object, Text, Time
from facturador.domain.reader import Reader
from tests.samples.bodies import credit_note_body, full_invoice, invoice_body

ODD = [None, "", " ", "  x ", 0, 1, -1, 2.5, 0.1, True, False, "abc", "12", "0012", [], {}, "NIU", "niu",
       " NIU", 10**13, -(10**13), "10", "01", "1", 18, "18.5", "-3", 1e308, "PEN", "pen", "6", 6,
       "2026-01-01", "2026-02-30", "10:11", "7:05:00", {"a": 1}, [1], "\t", "037", 37, "#",
       "x" * 1600]  # fmt: skip


def declared_objects() -> Iterator[tuple[str, Object]]:
    seen: set[int] = set()
    for module_info in pkgutil.iter_modules(facturador.domain.__path__):
        module = importlib.import_module(f"facturador.domain.{module_info.name}")
        for name, value in vars(module).items():
            if isinstance(value, Object) and id(value) not in seen:
                seen.add(id(value))
                yield f"{module_info.name}.{name}", value


def slow_read(declaration: Object, body: Any) -> tuple[str, list[tuple[str, str]], list[str]]:
    reader = Reader()
    compiled = Object.read
    Object.read = Object.read_slowly  # type: ignore[method-assign]  # nested objects field by field too
    try:
        values = declaration.read_slowly(reader, body, "")
    finally:
        Object.read = compiled  # type: ignore[method-assign]
    return repr(values), [(e.field, e.message) for e in reader.errors], list(reader.missing)


def fast_read(declaration: Object, body: Any) -> tuple[str, list[tuple[str, str]], list[str]]:
    reader = Reader()
    values = declaration.read(reader, body, "")
    return repr(values), [(e.field, e.message) for e in reader.errors], list(reader.missing)


def plausible(declared: fields.Field, rnd: random.Random, depth: int = 0) -> Any:
    """A value the declaration would likely accept (or a near miss)."""
    if isinstance(declared, Object):
        return {key: plausible(field, rnd, depth + 1) for key, field in declared.fields.items() if depth < 4}
    if isinstance(declared, List):
        return [plausible(declared.item, rnd, depth + 1) for _ in range(rnd.randint(0, 2))]
    if isinstance(declared, Code):
        codes = sorted(declared.codes)
        return rnd.choice(codes) if codes else ""
    if isinstance(declared, Number):
        return rnd.choice([1, 18, 100, "2.50", 0.5, 10**declared.integer_digits - 1])
    if isinstance(declared, Boolean):
        return rnd.choice([True, False, "true", 0])
    if isinstance(declared, Date):
        return "2026-11-22"
    if isinstance(declared, Time):
        return "10:11:11"
    if isinstance(declared, Text):
        return rnd.choice(["ABC", " abc ", "20601030013", 123, "150101"])
    return rnd.choice(ODD)


def mutated(body: Any, rnd: random.Random) -> Any:
    body = copy.deepcopy(body)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key in list(node):
                if rnd.random() < 0.15:
                    node[key] = rnd.choice(ODD)
                else:
                    walk(node[key])
            if node and rnd.random() < 0.05:
                node.pop(rnd.choice(list(node)))
        elif isinstance(node, list):
            for index in range(len(node)):
                if rnd.random() < 0.1:
                    node[index] = rnd.choice(ODD)
                else:
                    walk(node[index])

    walk(body)
    return body


@pytest.mark.parametrize(
    ("name", "declaration"), list(declared_objects()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_compiled_reader_reads_as_the_declarations(name: str, declaration: Object) -> None:
    rnd = random.Random(name)
    for attempt in range(150):
        body = plausible(declaration, rnd)
        if attempt % 3:
            body = mutated(body, rnd)
        assert fast_read(declaration, body) == slow_read(declaration, body), body


@pytest.mark.parametrize("make", [invoice_body, full_invoice, credit_note_body])
def test_compiled_reader_on_real_bodies(make: Any) -> None:
    from facturador.domain.document_schema import DOCUMENT

    rnd = random.Random(make.__name__)
    for attempt in range(300):
        body = make() if attempt == 0 else mutated(make(), rnd)
        assert fast_read(DOCUMENT, body) == slow_read(DOCUMENT, body), body


def test_a_whole_number_reads_as_a_decimal_and_a_float_is_rounded() -> None:
    from facturador.domain.document_schema import ITEM

    values = ITEM.read(Reader(), {"cantidad": 2, "total_igv": 18.005}, "")
    assert values["cantidad"] == Decimal(2) and values["total_igv"] == Decimal("18.01")


def _objects_within(declared: fields.Field) -> Iterator[Object]:
    """``declared`` and every object nested in it (fields, list items)."""
    if isinstance(declared, Object):
        yield declared
        for inner in declared.fields.values():
            yield from _objects_within(inner)
    elif isinstance(declared, List):
        yield from _objects_within(declared.item)


def _slow_default(declared: fields.Field) -> Any:
    if isinstance(declared, Object):
        return {key: _slow_default(inner) for key, inner in declared.fields.items()}
    return declared.default


@pytest.mark.parametrize(
    ("name", "declaration"), list(declared_objects()), ids=lambda x: x if isinstance(x, str) else ""
)
def test_compiled_default_is_the_fields_defaults_made_anew(name: str, declaration: Object) -> None:
    """An absent object's default (``fields.compile_default``): each field's default, key by key and in
    order, and two defaults share no list or dict (a reader may fill one in)."""
    for declared in _objects_within(declaration):
        first, second = declared.default, declared.default
        expected = _slow_default(declared)
        assert first == expected and list(first) == list(expected)
        assert first is not second
        for key, value in first.items():
            if isinstance(value, list | dict):
                assert value is not second[key], f"{name}: {key} shared between two defaults"


def test_whole_numbers_read_as_their_decimals_in_and_beyond_the_table() -> None:
    declaration = Object(
        name="Wholes",
        fields={"zero": Number(), "positive": Number(minimum="positive"), "signed": Number(minimum=None)},
    )
    for number in (0, 1, 18, 999, 1000, 1001, 123456789012, -1, -999, -1000):
        body = {"zero": number, "positive": number, "signed": number}
        compiled, reader = declaration.read(Reader(), body, ""), Reader()
        slowly = declaration.read_slowly(reader, body, "")
        assert compiled == slowly
        for key, value in compiled.items():
            assert repr(value) == repr(slowly[key])  # the same digits and exponent
        if number >= 0:
            assert compiled["zero"] == Decimal(number) and repr(compiled["zero"]) == repr(Decimal(number))
        assert compiled["signed"] == Decimal(number)
