"""Declared request fields: one declaration both checks a JSON value and describes it in the OpenAPI schema.

A body is an :class:`Object` of named fields (:class:`Text`, :class:`Code`, :class:`Number`, :class:`Date`,
:class:`Time`, :class:`Boolean`, :class:`List`, nested :class:`Object`). ``Object.read`` checks a parsed
body against its declaration, records every problem with its path (``items.0.cantidad``) in a
:class:`~facturador.domain.reader.Reader`, and returns a dict with every declared key: the clean value
(``str``, ``Decimal``, ``date``...) or the field's default when it is absent or wrong. ``schema()`` emits
the JSON Schema of the same declaration for ``/openapi.json``, so the contract and the check cannot
drift apart. Rules that need other fields or the database stay in the domain code that reads the values.

The declarations accept what real clients send (numbers for texts and codes, numeric strings for
amounts) and the schema says so: whatever the schema refuses, the reader refuses too. How to declare a
new field or body: ``docs/api_contract.md``.

:func:`check_json` is the one pass every JSON body gets at the edge, before any declaration: nesting
depth, text that XML cannot carry (anywhere, unknown keys included) and numbers no store can hold.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, NoReturn
from urllib.parse import unquote_to_bytes

from facturador.domain.reader import Reader
from facturador.errors import FieldError, ServiceError

#: Characters XML 1.0 cannot carry: C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF.
XML_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
#: The same rule as a JSON Schema pattern (a JSON string cannot name a lone surrogate in a pattern).
XML_TEXT_PATTERN = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]*$"
#: The longest path parameter taken: external ids have 36 characters, dates 10, record ids 10 digits, and
#: the GRE API's client ids and file names fewer than 60.
MAX_PATH_PARAMETER = 100
#: Deepest nesting a body may have (the declared bodies use 4 levels; unknown keys get some room).
MAX_DEPTH = 32
#: Integers anywhere in a body fit in 64 bits (every store and serializer holds them).
MAX_INTEGER = 2**63 - 1
#: A number given as text: plain digits, an optional sign and decimals (no exponent, no spaces).
NUMBER_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?")
NUMBER_TEXT_PATTERN = r"^-?[0-9]+(\.[0-9]+)?$"
#: Longest number accepted as text (12 integer digits, the point and far more decimals than SUNAT's 10).
NUMBER_TEXT_MAX_LENGTH = 40
DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
#: A date followed by a time of day, as PHP clients send ``Y-m-d H:i:s``: real PRO stores it in a DATE
#: column (the time is dropped), so the date is read and the time ignored.
DATE_TIME_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(:[0-9]{2})?$"
DMY_PATTERN = r"^[0-9]{2}-[0-9]{2}-[0-9]{4}$"
#: ``HH:MM:SS`` or ``HH:MM``; the hour may come without its leading zero (``7:59:48``, a 12-hour clock's
#: or PHP's ``G:i:s``), as a SQL TIME column takes it.
TIME_PATTERN = r"^[0-9]{1,2}:[0-9]{2}(:[0-9]{2})?$"
_DATE = re.compile(DATE_PATTERN)
_DATE_TIME = re.compile(DATE_TIME_PATTERN)
_DMY = re.compile(DMY_PATTERN)
_TIME = re.compile(TIME_PATTERN)
#: Enough digits to round any bounded amount (12 integer digits, products and quotients of two of them).
_WIDE = Context(prec=80, rounding=ROUND_HALF_UP)
#: Texts read as booleans, compared in lower case: PHP clients send ``"True"``, ``"false"``, ``"1"``, and an
#: empty text for false (``(string) false`` in PHP is ``""``).
_BOOLEANS: dict[Any, bool] = {"": False, "0": False, "1": True, "false": False, "true": True}
BOOLEAN_TEXT_PATTERN = "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|[01]|)$"

JsonSchema = dict[str, Any]
#: Named objects of the schema (``#/components/schemas/NAME``), filled as declarations emit their schema.
Components = dict[str, JsonSchema]


#: The largest id of a stored record (PostgreSQL's INTEGER): a larger id in a body or a path is refused
#: as out of range instead of reaching the database.
MAX_RECORD_ID = 2**31 - 1


@dataclass(frozen=True)
class Field:
    """A declared field. ``required``: its absence (missing, null, or blank text) is an error."""

    description: str = ""
    required: bool = False

    #: The value an absent or wrong field reads as.
    @property
    def default(self) -> Any:
        return None

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        """The clean value of a present ``value``; on a problem, record it and return ``default``."""
        raise NotImplementedError

    def schema(self, components: Components) -> JsonSchema:
        """The JSON Schema of the value (``null`` included when the field is optional)."""
        schema = self._schema(components)
        description = self.describe()
        if description and "$ref" not in schema:
            schema["description"] = description
        if not self.required:
            if "$ref" in schema:
                return {"anyOf": [schema, {"type": "null"}]}
            types = schema.get("type")
            if isinstance(types, list):
                schema["type"] = [*types, "null"]
            elif isinstance(types, str):
                schema["type"] = [types, "null"]
            if "enum" in schema:
                schema["enum"] = [*schema["enum"], None]
        return schema

    def _schema(self, components: Components) -> JsonSchema:
        raise NotImplementedError

    def describe(self) -> str:
        """The schema's description of the field."""
        return self.description

    def but(self, **changes: Any) -> Any:
        """A copy with some attributes changed (``EXTERNAL_ID.but(required=True)``)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Text(Field):
    """A string; integers are taken as their digits (real clients send both). ``max_length`` counts the
    characters as sent; the value is then trimmed (and upper-cased with ``upper``). ``pattern`` is matched
    against the text as sent, ``check`` (text -> problem or ``None``) runs on the clean text."""

    max_length: int | None = None
    pattern: str | None = None
    pattern_message: str = ""
    upper: bool = False
    lower: bool = False
    check: Callable[[str], str | None] | None = None
    example: Any = None

    @property
    def default(self) -> Any:
        return ""

    def text(self, reader: Reader, value: Any, path: str) -> str | None:
        if value.__class__ is str:
            raw = value
        elif isinstance(value, int) and not isinstance(value, bool):
            raw = str(value)
        else:
            reader.error(path, f"El campo {path} debe ser un texto.")
            return None
        if self.max_length is not None and len(raw) > self.max_length:
            reader.error(path, f"El campo {path} no debe superar {self.max_length} caracteres.")
            return None
        if self.pattern is not None and not _compiled(self.pattern).fullmatch(raw):
            reader.error(path, self.pattern_message.format(path=path) or f"El campo {path} no es válido.")
            return None
        text = raw.strip()
        if self.upper:
            return text.upper()
        return text.lower() if self.lower else text

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        text = self.text(reader, value, path)
        if text is None:
            return self.default
        if self.check is not None and text:
            problem = self.check(text)
            if problem:
                reader.error(path, problem.format(path=path))
                return self.default
        return text

    def _schema(self, components: Components) -> JsonSchema:
        schema: JsonSchema = {"type": ["string", "integer"]}
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        schema["pattern"] = self.pattern or XML_TEXT_PATTERN
        if self.example is not None:
            schema["examples"] = [self.example]
        return schema


@dataclass(frozen=True)
class Code(Text):
    """A code of a catalog (``sunat.catalogs``): the schema lists the codes (an ``enum``), the reader
    compares the trimmed text (upper-cased with ``upper``; ``digits`` left-pads short digit strings and
    numbers with zeros, as ``37`` for ``"037"``). ``message`` replaces the catalog message."""

    codes: Collection[str] = ()
    catalog: str = ""
    digits: int = 0
    message: str = ""

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        if self.digits and isinstance(value, int | str) and not isinstance(value, bool):
            text = str(value).strip()
            if text.isdigit() and len(text) < self.digits:
                value = text.zfill(self.digits)
        code = self.text(reader, value, path)
        if code is None:
            return self.default
        if code and code not in self.codes:
            message = self.message or f"El código {code} del campo {path} no existe en el {self.catalog}."
            reader.error(path, message.format(path=path, code=code))
            return self.default
        return code

    def _schema(self, components: Components) -> JsonSchema:
        codes = sorted(self.codes)
        accepted: list[Any] = list(codes)
        # what the reader also takes: integers for codes written without leading zeros, and their padding
        accepted += [int(code) for code in codes if code.isdigit() and str(int(code)) == code]
        if self.digits:
            accepted += sorted({int(code) for code in codes if code.isdigit()} - set(accepted))
            accepted += sorted({code.lstrip("0") or "0" for code in codes if code.isdigit()} - set(accepted))
        if self.upper:
            accepted += sorted({code.lower() for code in codes} - set(codes))
        if self.lower:
            accepted += sorted({code.upper() for code in codes} - set(codes))
        return {"type": ["string", "integer"], "enum": accepted}

    def describe(self) -> str:
        return " ".join(
            part for part in (self.description, f"({self.catalog})" if self.catalog else "") if part
        )


@dataclass(frozen=True)
class Number(Field):
    """A decimal number, as a JSON number or as text (``"118.50"``): at most ``integer_digits`` digits
    before the point, rounded half up to ``decimals`` places (SUNAT's ``n(12,2)`` amounts, ``n(12,10)``
    quantities and unit values, ``n(3,5)`` percentages). ``minimum``: ``"zero"`` (the default, no
    negatives), ``"positive"`` (greater than 0) or ``None``."""

    integer_digits: int = 12
    decimals: int = 2
    minimum: str | None = "zero"
    maximum: int | None = None
    #: What an absent field reads as (``None`` tells absent from 0).
    absent: Decimal | None = Decimal("0")
    example: Any = None

    @property
    def default(self) -> Any:
        return self.absent

    def __post_init__(self) -> None:
        # computed once per declaration: the hot path only compares and quantizes
        object.__setattr__(self, "_limit", Decimal(10) ** self.integer_digits)
        object.__setattr__(self, "_quantum", Decimal(1).scaleb(-self.decimals))

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        number = _decimal(value)
        if number is None:
            reader.error(path, f"El campo {path} debe ser un número.")
            return self.default
        minimum = self.minimum
        if minimum == "positive" and number <= 0:
            reader.error(path, f"El campo {path} debe ser mayor que 0.")
            return self.default
        if minimum == "zero" and number < 0:
            reader.error(path, f"El campo {path} no puede ser negativo.")
            return self.default
        if self.maximum is not None and number > self.maximum:
            reader.error(path, f"El campo {path} no puede ser mayor que {self.maximum}.")
            return self.default
        limit: Decimal = self._limit  # type: ignore[attr-defined]
        if abs(number) >= limit:  # before rounding: 1e308 must not reach quantize
            reader.error(path, self._range_message(path))
            return self.default
        if value.__class__ is int:  # a whole number needs no rounding (its sign and size are checked)
            return number
        rounded = number.quantize(self._quantum, ROUND_HALF_UP, _WIDE)  # type: ignore[attr-defined]
        if abs(rounded) >= limit:
            reader.error(path, self._range_message(path))
            return self.default
        if minimum == "positive" and not rounded:
            reader.error(path, f"El campo {path} debe ser mayor que 0.")
            return self.default
        return rounded

    def _range_message(self, path: str) -> str:
        return (
            f"El campo {path} está fuera de rango: admite hasta {self.integer_digits} dígitos enteros "
            f"y {self.decimals} decimales."
        )

    def _schema(self, components: Components) -> JsonSchema:
        limit = 10**self.integer_digits
        schema: JsonSchema = {
            "type": ["number", "string"],
            **({"maximum": self.maximum} if self.maximum is not None else {"exclusiveMaximum": limit}),
            "pattern": NUMBER_TEXT_PATTERN,
            "maxLength": NUMBER_TEXT_MAX_LENGTH,
        }
        if self.minimum == "positive":
            schema["exclusiveMinimum"] = 0
        elif self.minimum == "zero":
            schema["minimum"] = 0
        else:
            schema["exclusiveMinimum"] = -limit
        if self.example is not None:
            schema["examples"] = [self.example]
        return schema

    def describe(self) -> str:
        rule = (
            f"Hasta {self.integer_digits} enteros; se redondea a {self.decimals} decimales (mitad hacia "
            "arriba). Número JSON o texto con dígitos."
        )
        return f"{self.description} {rule}".strip()


@dataclass(frozen=True)
class Date(Field):
    """A calendar date ``AAAA-MM-DD`` (with ``day_first``, also ``DD-MM-AAAA``); a date with a time of day
    (``AAAA-MM-DD HH:MM:SS``) is read as its date."""

    day_first: bool = False

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        if isinstance(value, str):
            try:
                if _DATE.fullmatch(value):
                    return dt.date.fromisoformat(value)
                if _DATE_TIME.fullmatch(value):
                    dt.time.fromisoformat(_padded_time(value[11:]))  # the time must be a time too
                    return dt.date.fromisoformat(value[:10])
                if self.day_first and _DMY.fullmatch(value):
                    day, month, year = (int(part) for part in value.split("-"))
                    return dt.date(year, month, day)
            except ValueError:
                pass
        formats = "AAAA-MM-DD o DD-MM-AAAA" if self.day_first else "AAAA-MM-DD"
        reader.error(path, f"El campo {path} debe ser una fecha válida con formato {formats}.")
        return None

    def _schema(self, components: Components) -> JsonSchema:
        patterns = [DATE_PATTERN, DATE_TIME_PATTERN] + ([DMY_PATTERN] if self.day_first else [])
        return {
            "type": "string",
            "pattern": "|".join(f"({pattern})" for pattern in patterns),
            "examples": ["2026-11-22"],
        }


@dataclass(frozen=True)
class Time(Field):
    """A time of day ``HH:MM:SS`` (or ``HH:MM``), the hour with or without its leading zero."""

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        if isinstance(value, str) and _TIME.fullmatch(value):
            try:
                return dt.time.fromisoformat(_padded_time(value))
            except ValueError:
                pass
        reader.error(path, f"El campo {path} debe ser una hora válida con formato HH:MM:SS.")
        return None

    def _schema(self, components: Components) -> JsonSchema:
        return {"type": "string", "pattern": TIME_PATTERN, "examples": ["10:11:11"]}


@dataclass(frozen=True)
class Boolean(Field):
    """True or false; also ``0``/``1`` and the texts ``"0"``, ``"1"``, ``"true"``, ``"false"`` in any case
    and ``""`` (false), as PHP clients write them. Any other text is refused."""

    fallback: bool = False

    @property
    def default(self) -> Any:
        return self.fallback

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.lower() in _BOOLEANS:
            return _BOOLEANS[value.lower()]
        reader.error(path, f"El campo {path} debe ser verdadero o falso.")
        return self.fallback

    def _schema(self, components: Components) -> JsonSchema:
        # pattern applies to texts only, minimum and maximum to numbers only
        return {
            "type": ["boolean", "integer", "string"],
            "minimum": 0,
            "maximum": 1,
            "pattern": BOOLEAN_TEXT_PATTERN,
        }


@dataclass(frozen=True)
class Placeholder:
    """Entries of a list that say nothing (a discount of 0.00, an attribute without a value), as real
    clients send them to fill a form: ``test`` tells one from a raw element, ``schema`` describes it."""

    test: Callable[[Any], bool]
    schema: JsonSchema


@dataclass(frozen=True)
class List(Field):
    """A list of ``item``: at most ``max_items`` (what SUNAT or the store takes; more is refused before
    any element is read), at least ``min_items`` when present. ``placeholder``: entries it tells are
    left out before ``item`` reads the rest (their paths keep the positions sent); the schema admits
    them beside ``item``."""

    item: Field = field(default_factory=Field)
    max_items: int = 0
    min_items: int = 0
    max_message: str = ""
    min_message: str = ""
    placeholder: Placeholder | None = None

    @property
    def default(self) -> Any:
        return []

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        if not isinstance(value, list):
            reader.error(path, f"El campo {path} debe ser una lista.")
            return []
        if len(value) > self.max_items:
            message = self.max_message or f"El campo {path} admite como máximo {self.max_items} elementos."
            reader.error(path, message.format(path=path, max=self.max_items))
            return []
        if len(value) < self.min_items:
            message = self.min_message or f"El campo {path} debe tener al menos {self.min_items} elemento(s)."
            reader.error(path, message.format(path=path, min=self.min_items))
            return []
        item, placeholder = self.item, self.placeholder
        return [
            item.read(reader, element, f"{path}.{index}")
            for index, element in enumerate(value)
            if placeholder is None or not placeholder.test(element)
        ]

    def _schema(self, components: Components) -> JsonSchema:
        item = replace(self.item, required=True)
        items = item.schema(components)
        if self.placeholder is not None:
            items = {"anyOf": [items, self.placeholder.schema]}
        schema: JsonSchema = {"type": "array", "items": items, "maxItems": self.max_items}
        if self.min_items:
            schema["minItems"] = self.min_items
        return schema


@dataclass(frozen=True)
class Object(Field):
    """A JSON object with declared ``fields`` (unknown keys are kept, unread). ``name`` makes it a named
    component of the schema. ``one_of_keys``: at least one of these keys must be present, else each gets
    ``one_of_message`` (a missing-field error)."""

    name: str = ""
    fields: Mapping[str, Field] = field(default_factory=dict)
    one_of_keys: tuple[str, ...] = ()
    one_of_message: str = ""
    example: Any = None

    @property
    def default(self) -> Any:
        return self._default()

    @functools.cached_property
    def _default(self) -> Callable[[], dict[str, Any]]:
        """Makes the default of an absent object (a body leaves most blocks out): its fields' defaults,
        the immutable ones taken once, lists and objects made anew on each call (:func:`compile_default`)."""
        return compile_default(self)

    def read(self, reader: Reader, value: Any, path: str) -> Any:
        return self._reader(reader, value, path)

    def read_slowly(self, reader: Reader, value: Any, path: str) -> Any:
        """What :meth:`read` does, field by field through each declaration's ``read``: the reference the
        compiled reader (:func:`compile_object`) is tested against."""
        if not isinstance(value, Mapping):
            reader.error(path, f"El campo {path} debe ser un objeto.")
            return self.default
        prefix = f"{path}." if path else ""
        values: dict[str, Any] = {}
        get = value.get
        for key, declared in self.fields.items():
            raw = get(key)
            # absent: missing, null, or (for a required field) blank text
            if raw is None or (declared.required and raw.__class__ is str and not raw.strip()):
                if declared.required:
                    reader.missing_field(prefix + key)
                values[key] = declared.default
            else:
                values[key] = declared.read(reader, raw, prefix + key)
        if self.one_of_keys and not any(_given(value.get(key)) for key in self.one_of_keys):
            for key in self.one_of_keys:
                reader.missing_field(prefix + key, self.one_of_message)
        return values

    @functools.cached_property
    def _reader(self) -> Callable[[Reader, Any, str], Any]:
        return compile_object(self)

    def read_body(self, body: Any) -> dict[str, Any]:
        """Read a whole body; raise one 422 listing every problem."""
        reader = Reader()
        values = self.read(reader, body, "")
        reader.raise_if_errors()
        return values

    def _schema(self, components: Components) -> JsonSchema:
        if self.name and self.name in components:
            return {"$ref": f"#/components/schemas/{self.name}"}
        if self.name:
            components[self.name] = {}  # reserved: a recursive reference finds it
        properties = {key: declared.schema(components) for key, declared in self.fields.items()}
        schema: JsonSchema = {"type": "object", "properties": properties}
        required = [key for key, declared in self.fields.items() if declared.required]
        if required:
            schema["required"] = required
        if self.one_of_keys:
            schema["anyOf"] = [{"required": [key]} for key in self.one_of_keys]
        if self.description:
            schema["description"] = self.description
        if self.example is not None:
            schema["examples"] = [self.example]
        if not self.name:
            return schema
        components[self.name] = schema
        return {"$ref": f"#/components/schemas/{self.name}"}


# ----------------------------------------------------------------------------------------------------
# The compiled reader of an Object


def compile_object(declaration: Object) -> Callable[[Reader, Any, str], Any]:
    """A function reading a value with ``declaration`` as :meth:`Object.read_slowly` does, with the
    fields unrolled: one statement per field, the absent and blank tests inline, and for the common
    values a fast path that needs no call (a code of the catalog as sent, a plain text within its
    length, a whole number within bounds, a boolean). Anything else (a problem, a text to trim or pad, a
    decimal to round) goes to the field's own ``read``, which says what is wrong; so both readers give
    the same values and the same errors, and the path of a field is only built when it is needed.

    The values start as a copy of the declaration's immutable defaults (a dict of every key, in order)
    and only present fields and new lists or objects are stored in it: a dict display of more than 15
    entries is built key by key, growing, at twice the cost of the copy and the stores of an item."""
    template: dict[str, Any] = {}
    namespace: dict[str, Any] = {
        "Mapping": Mapping,
        "Decimal": Decimal,
        "_given": _given,
        "declaration": declaration,
    }
    lines = [
        "def read(reader, value, path):",
        "    if value.__class__ is not dict and not isinstance(value, Mapping):",
        '        reader.error(path, f"El campo {path} debe ser un objeto.")',
        "        return declaration.default",
        '    prefix = path + "." if path else ""',
        "    get = value.get",
        "    values = TEMPLATE.copy()",
    ]
    for index, (key, declared) in enumerate(declaration.fields.items()):
        field_name, name = f"F{index}", f"values[{key!r}]"
        namespace[field_name] = declared
        default = declared.default
        if default is None or isinstance(default, str | bool | Decimal):
            template[key] = default
            absent = "pass"  # the template's value
        else:  # a list or dict: a new one each time (a list's without a call to its default)
            template[key] = None
            absent = f"{name} = {'[]' if declared.__class__ is List else f'{field_name}.default'}"
        lines.append(f"    raw = get({key!r})")
        lines.append("    if raw is None:")
        if declared.required:
            lines.append(f"        reader.missing_field(prefix + {key!r})")
        lines.append(f"        {absent}")
        if declared.required:
            lines.append("    elif raw.__class__ is str and not raw.strip():")
            lines.append(f"        reader.missing_field(prefix + {key!r})")
            lines.append(f"        {absent}")
        fast = _fast_path(declared, index, namespace)
        if fast is not None:
            condition, expression = fast
            lines.append(f"    elif {condition}:")
            lines.append(f"        {name} = {expression}")
        lines.append("    else:")
        lines.append(f"        {name} = {field_name}.read(reader, raw, prefix + {key!r})")
    namespace["TEMPLATE"] = template
    if declaration.one_of_keys:
        namespace["ONE_OF"] = declaration.one_of_keys
        namespace["ONE_OF_MESSAGE"] = declaration.one_of_message
        lines.append("    if not any(_given(get(key)) for key in ONE_OF):")
        lines.append("        for key in ONE_OF:")
        lines.append("            reader.missing_field(prefix + key, ONE_OF_MESSAGE)")
    lines.append("    return values")
    exec(compile("\n".join(lines), f"<reader of {declaration.name or 'an object'}>", "exec"), namespace)  # noqa: S102
    compiled: Callable[[Reader, Any, str], Any] = namespace["read"]
    return compiled


def compile_default(declaration: Object) -> Callable[[], dict[str, Any]]:
    """A function returning ``{key: field.default ...}`` of ``declaration`` as one dict display: the
    defaults that cannot change (``None``, texts, booleans, Decimals) are its constants, the others (a
    list, a nested object's dict) are asked of their field on each call, so no two results share them."""
    namespace: dict[str, Any] = {}
    entries = []
    for index, (key, declared) in enumerate(declaration.fields.items()):
        default = declared.default
        if default is None or isinstance(default, str | bool | Decimal):
            namespace[f"D{index}"] = default
            entries.append(f"{key!r}: D{index}")
        else:
            namespace[f"F{index}"] = declared
            entries.append(f"{key!r}: F{index}.default")
    source = "def default():\n    return {" + ", ".join(entries) + "}"
    exec(compile(source, f"<default of {declaration.name or 'an object'}>", "exec"), namespace)  # noqa: S102
    made: Callable[[], dict[str, Any]] = namespace["default"]
    return made


def _fast_path(declared: Field, index: int, namespace: dict[str, Any]) -> tuple[str, str] | None:
    """(condition on ``raw``, value) of a field's value that reads as itself, with no problem to
    record; ``None`` when every value goes through the field's ``read``. ``raw`` is not None here."""
    kind = declared.__class__
    if kind is Code:
        assert isinstance(declared, Code)
        if declared.pattern is not None:
            return None
        # a code sent as the catalog writes it: what trimming, case and padding would leave unchanged
        stable = frozenset(
            code
            for code in declared.codes
            if code == code.strip()
            and not (declared.upper and code != code.upper())
            and not (declared.lower and code != code.lower())
            and (declared.max_length is None or len(code) <= declared.max_length)
            and not (declared.digits and code.isdigit() and len(code) < declared.digits)
        )
        namespace[f"C{index}"] = stable
        return f"raw.__class__ is str and raw in C{index}", "raw"
    if kind is Text:
        assert isinstance(declared, Text)
        if declared.pattern is not None or declared.check is not None:
            return None
        case = ".upper()" if declared.upper else ".lower()" if declared.lower else ""
        length = "" if declared.max_length is None else f" and len(raw) <= {declared.max_length}"
        return f"raw.__class__ is str{length}", f"raw.strip(){case}"
    if kind is Number:
        assert isinstance(declared, Number)
        limit = 10**declared.integer_digits
        low = {"positive": 1, "zero": 0}.get(declared.minimum or "", -limit + 1)
        high = limit - 1 if declared.maximum is None else min(limit - 1, declared.maximum)
        # a whole number needs no rounding: within its bounds it is the value (a small one, as most
        # quantities and percents, a Decimal made once: making one costs a tenth of reading an item)
        value = f"WHOLE[raw] if raw < {len(_WHOLE)} else Decimal(raw)" if low >= 0 else "Decimal(raw)"
        namespace["WHOLE"] = _WHOLE
        return f"raw.__class__ is int and {low} <= raw <= {high}", value
    if kind is Boolean:
        return "raw.__class__ is bool", "raw"
    return None


#: The Decimals of the whole numbers a body sends most (its quantities and percents: ``2``, ``18``).
_WHOLE = tuple(Decimal(number) for number in range(1000))


def _padded_time(text: str) -> str:
    """``H:MM[:SS]`` or ``HH:MM[:SS]`` as ``HH:MM:SS``."""
    parts = text.split(":")
    return ":".join([parts[0].zfill(2), *parts[1:], *(["00"] if len(parts) == 2 else [])])


def _given(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        compiled = _PATTERNS[pattern] = re.compile(pattern)
    return compiled


def _decimal(value: Any) -> Decimal | None:
    """A finite Decimal from a JSON number or a plain numeric text; ``None`` for anything else."""
    kind = value.__class__
    if kind is int:
        return Decimal(value)
    if kind is float:
        return Decimal(repr(value)) if math.isfinite(value) else None
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and len(value) <= NUMBER_TEXT_MAX_LENGTH and NUMBER_TEXT.fullmatch(value):
        return Decimal(value)
    return None


# ----------------------------------------------------------------------------------------------------
# The edge: one pass over every parsed JSON body


def check_json(body: Any, raw: bytes | None = None) -> None:
    """Refuse a parsed body no declaration should see: nesting deeper than :data:`MAX_DEPTH` (400); text
    XML cannot carry in any key or value (422 ``INVALID_CHARACTERS``), non-finite numbers and integers
    beyond 64 bits (422 ``INVALID_NUMBER``), naming every such field. Iterative: a deep body cannot
    exhaust the stack.

    ``raw``, the JSON text the body was parsed from, lets the texts go unchecked when they cannot hold such
    a character: JSON text carries a control character or a surrogate only as an escape (``\\u``, or
    ``\\b`` and ``\\f``; a raw one is invalid JSON), and U+FFFE/U+FFFF only as an escape or their UTF-8
    bytes (other encodings: always checked)."""
    texts = (
        raw is None
        or json.detect_encoding(raw) not in ("utf-8", "utf-8-sig")  # UTF-16/32 JSON: check every text
        or b"\\u" in raw
        or b"\\b" in raw  # the short escapes of U+0008 and U+000C
        or b"\\f" in raw
        or b"\xef\xbf\xbe" in raw
        or b"\xef\xbf\xbf" in raw
    )
    errors: list[tuple[FieldError, str]] = []
    if not isinstance(body, dict | list):
        _check_scalar(body, "", texts, errors)
    stack: list[tuple[Any, str, int]] = [(body, "", 0)] if isinstance(body, dict | list) else []
    pop, push = stack.pop, stack.append
    unsafe = XML_UNSAFE.search
    while stack and len(errors) <= 100:
        container, path, depth = pop()
        if depth >= MAX_DEPTH:
            raise too_deep()
        prefix = f"{path}." if path else ""
        items = container.items() if container.__class__ is dict else enumerate(container)
        for key, value in items:
            kind = value.__class__
            if kind is dict or kind is list:
                if texts and key.__class__ is str and unsafe(key):
                    _check_scalar(key, prefix, texts, errors, key=True)
                    continue
                push((value, f"{prefix}{key}", depth + 1))
            elif kind is not bool and value is not None:
                if texts and key.__class__ is str and unsafe(key):
                    _check_scalar(key, prefix, texts, errors, key=True)
                    continue
                if kind is str and not texts:
                    continue
                if kind is int and -MAX_INTEGER <= value <= MAX_INTEGER:
                    continue
                _check_scalar(value, f"{prefix}{key}", texts, errors)
            elif texts and key.__class__ is str and unsafe(key):
                _check_scalar(key, prefix, texts, errors, key=True)
    if errors:
        errors.sort(key=lambda error: error[0].field)
        (first, code), more = errors[0], len(errors) - 1
        message = first.message + (f" (y {more} error(es) más)" if more else "")
        raise ServiceError(422, message, code, [error for error, _code in errors])


def _check_scalar(
    value: Any, path: str, texts: bool, errors: list[tuple[FieldError, str]], *, key: bool = False
) -> None:
    """Record the problem of one value (or, with ``key``, of the key ``value`` under ``path``)."""
    if isinstance(value, str):
        found = XML_UNSAFE.search(value) if texts else None
        if found is not None:
            where = f"{path}{_printable(value)}" if key else path
            message = _unsafe_message(where, found.group(), key=key)
            errors.append((FieldError(where, message), "INVALID_CHARACTERS"))
    elif isinstance(value, float):
        if not math.isfinite(value):
            errors.append((FieldError(path, f"El campo {path} debe ser un número finito."), "INVALID_NUMBER"))
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INTEGER:
        errors.append(
            (FieldError(path, f"El campo {path} tiene un número fuera de rango."), "INVALID_NUMBER")
        )


def check_text(value: str, name: str) -> None:
    """Refuse (422 naming ``name``) a text outside a body, a path parameter, that XML cannot carry."""
    found = XML_UNSAFE.search(value)
    if found:
        message = _unsafe_message(name, found.group())
        _refuse(name, message, "INVALID_CHARACTERS")


def check_path_parameters(parameters: Mapping[str, str], raw_path: bytes) -> None:
    """The one check every path parameter of every route gets before the route reads it (the service
    installs it for all its routes, and the GRE API it mounts for its own): text that arrived as UTF-8,
    that XML can carry, of at most :data:`MAX_PATH_PARAMETER` characters; else 422 naming the
    parameter. ``raw_path`` is the path as sent (percent-encoded): the server decodes bytes that are not
    UTF-8 to U+FFFD, so only the raw path tells them from a U+FFFD that was sent."""
    for name, value in parameters.items():
        if "\ufffd" in value and _not_utf8(raw_path):
            _refuse(name, f"El campo {name} no es texto UTF-8 válido.", "INVALID_CHARACTERS")
        check_text(value, name)
        if len(value) > MAX_PATH_PARAMETER:
            _refuse(
                name, f"El campo {name} no debe superar {MAX_PATH_PARAMETER} caracteres.", "INVALID_FIELDS"
            )


def _not_utf8(raw_path: bytes) -> bool:
    try:
        unquote_to_bytes(raw_path).decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _refuse(name: str, message: str, code: str) -> NoReturn:
    raise ServiceError(422, message, code, [FieldError(name, message)])


def too_deep() -> ServiceError:
    return ServiceError(
        400,
        f"El cuerpo de la petición tiene demasiados niveles de anidamiento (máximo {MAX_DEPTH}).",
        "BODY_TOO_DEEP",
    )


def _unsafe_message(path: str, char: str, *, key: bool = False) -> str:
    what = "El nombre del campo" if key else "El campo"
    return f"{what} {path} contiene un carácter no permitido (U+{ord(char):04X})."


def _printable(text: str) -> str:
    return XML_UNSAFE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)
