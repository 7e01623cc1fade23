"""A generic JSON codec for frozen dataclasses: field names are the JSON keys and the type hints
say how to read each value back, so a renamed or retyped field fails loudly, with its path."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from enum import Enum
from functools import cache
from typing import Any

from engine.text import Text, from_dict

# Keys omitted from the JSON when their value is None: the API never sent them as null.
OMIT_NONE = "omit_none"


class ResultFormatError(ValueError):
    """Stored or received JSON that is not a design result (or catalog snapshot) this version
    of the planner can read: a missing field, a wrong type."""


def omit_none() -> dict[str, bool]:
    """Field metadata: leave the key out of the JSON when the value is None."""
    return {OMIT_NONE: True}


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def encode(value: Any) -> Any:
    if isinstance(value, Text):
        return value.as_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if item is None and f.metadata.get(OMIT_NONE):
                continue
            out[f.name] = encode(item)
        return out
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple | list):
        return [encode(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): encode(item) for key, item in value.items()}
    return value


def format_error(path: str, expected: str, value: Any) -> ResultFormatError:
    return ResultFormatError(f"{path}: expected {expected}, got {type(value).__name__} {value!r}")


def decode(hint: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any:
        return value
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None:
            if type(None) in options:
                return None
            raise format_error(path, str(hint), value)
        others = [option for option in options if option is not type(None)]
        if len(others) == 1:
            return decode(others[0], value, path)
        raise ResultFormatError(f"{path}: unsupported union {hint}")
    if hint is Text:
        if not isinstance(value, dict):
            raise format_error(path, "a text object", value)
        return from_dict(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return decode_dataclass(hint, value, path)
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except ValueError as exc:
            raise format_error(path, hint.__name__, value) from exc
    if hint is bool:
        if not isinstance(value, bool):
            raise format_error(path, "a boolean", value)
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise format_error(path, "an integer", value)
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise format_error(path, "a number", value)
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise format_error(path, "text", value)
        return value
    if hint is Decimal:
        try:
            return Decimal(str(value))
        except InvalidOperation as exc:
            raise format_error(path, "an amount", value) from exc
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list | tuple):
            raise format_error(path, "a list", value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], item, f"{path}[{i}]") for i, item in enumerate(value))
        if len(args) != len(value):
            raise format_error(path, f"{len(args)} items", value)
        return tuple(
            decode(arg, item, f"{path}[{i}]")
            for i, (arg, item) in enumerate(zip(args, value, strict=True))
        )
    if origin in (Mapping, dict, typing.get_origin(Mapping[str, Any])):
        key_type, value_type = typing.get_args(hint)
        if not isinstance(value, dict):
            raise format_error(path, "an object", value)
        return {
            decode(key_type, key, path): decode(value_type, item, f"{path}.{key}")
            for key, item in value.items()
        }
    raise ResultFormatError(f"{path}: unsupported type {hint}")


def decode_dataclass(cls: type, value: Any, path: str) -> Any:
    if not isinstance(value, dict):
        raise format_error(path, f"an object ({cls.__name__})", value)
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in value:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ResultFormatError(f"{path}.{f.name}: missing")
            continue
        kwargs[f.name] = decode(hints[f.name], value[f.name], f"{path}.{f.name}")
    return cls(**kwargs)
