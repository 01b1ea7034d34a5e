"""one_store_init: a frozen dataclass built with one store keeps what the generated __init__ gave."""

from __future__ import annotations

import dataclasses
import inspect
from decimal import Decimal

import pytest

from facturador.issued import Line, SalesDocument, Totals, one_store_init


@dataclasses.dataclass(frozen=True)
class _Reference:
    name: str
    amount: Decimal = Decimal("0")
    tags: tuple[str, ...] = ()
    notes: list[str] = dataclasses.field(default_factory=list)


_Fast = one_store_init(
    dataclasses.make_dataclass(
        "_Fast",
        [
            ("name", str),
            ("amount", Decimal, dataclasses.field(default=Decimal("0"))),
            ("tags", tuple, dataclasses.field(default=())),
            ("notes", list, dataclasses.field(default_factory=list)),
        ],
        frozen=True,
    )
)


def test_same_values_defaults_and_factories_as_the_generated_init() -> None:
    for args, kwargs in (
        (("a",), {}),
        (("a", Decimal("2.50")), {"tags": ("x",)}),
        ((), {"name": "b", "notes": ["n"]}),
    ):
        fast, reference = _Fast(*args, **kwargs), _Reference(*args, **kwargs)
        assert dataclasses.asdict(fast) == dataclasses.asdict(reference)
    first, second = _Fast("a"), _Fast("a")
    assert first.notes == [] and first.notes is not second.notes  # a fresh default from the factory
    assert first == second and repr(first) == repr(_Reference("a")).replace("_Reference", "_Fast")


def test_still_frozen_and_replace_and_signature_work() -> None:
    line = Line(
        index=1,
        description="x",
        unit="NIU",
        quantity=Decimal(2),
        unit_value=Decimal(50),
        price_type="01",
        unit_price=Decimal(59),
        affectation="10",
        igv_base=Decimal(100),
        igv_percent=Decimal(18),
        igv=Decimal(18),
        taxes=Decimal(18),
        value=Decimal(100),
        total=Decimal(118),
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        line.index = 2  # type: ignore[misc]
    assert dataclasses.replace(line, index=2).index == 2 and line.index == 1
    assert line.icbper == Decimal("0") and line.allowances == () and line.isc_system == ""
    assert hash(line) == hash(dataclasses.replace(line))
    names = list(inspect.signature(Line).parameters)
    assert names == [field.name for field in dataclasses.fields(Line)]
    assert Totals().total == Decimal("0")
    with pytest.raises(TypeError):
        Line(1, "x")  # type: ignore[call-arg]  # the required fields are still required
    assert "SalesDocument.__init__" in SalesDocument.__init__.__qualname__


def test_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass
    class Mutable:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    @dataclasses.dataclass(frozen=True, slots=True)
    class Slotted:
        a: int

    @dataclasses.dataclass(frozen=True)
    class Hidden:
        a: int
        b: int = dataclasses.field(default=0, init=False)

    for cls in (Mutable, Checked, Slotted, Hidden):
        with pytest.raises(TypeError):
            one_store_init(cls)
