"""User-facing engine text that the web layer can translate, without the engine importing Django.

Each message is an English template with named %-placeholders and the values to fill in. The
engine renders English (the CLI, `str()` of an error); `planner.i18n` translates the template
through gettext in the reader's language and fills in the same values. `makemessages` finds the
templates because they are marked with a function of the name it looks for, `gettext_noop`."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


def gettext_noop(template: str) -> str:
    """Mark `template` for translation; returns it unchanged (the name is what xgettext sees)."""
    return template


def _identity(template: str) -> str:
    return template


class Text(NamedTuple):
    """A template and its values. A value may itself be a text (or several, shown joined by
    "; "), translated along with the outer one: "No media for ...: DAC reaches 3 m"."""

    template: str
    params: tuple[tuple[str, str | Text | tuple[Text, ...]], ...] = ()

    def render(self, translate: Callable[[str], str] = _identity) -> str:
        translated = translate(self.template)
        if not self.params:
            return translated
        values: dict[str, str] = {}
        for name, value in self.params:
            if isinstance(value, Text):
                values[name] = value.render(translate)
            elif isinstance(value, tuple):
                values[name] = "; ".join(part.render(translate) for part in value)
            else:
                values[name] = value
        return translated % values

    def __str__(self) -> str:
        return self.render()

    def as_dict(self) -> dict[str, object]:
        params: dict[str, object] = {}
        for name, value in self.params:
            if isinstance(value, Text):
                params[name] = value.as_dict()
            elif isinstance(value, tuple):
                params[name] = [part.as_dict() for part in value]
            else:
                params[name] = value
        return {"template": self.template, "params": params}


def text(template: str, **params: object) -> Text:
    """A message: `template` is marked with gettext_noop at the call site; plain values become
    strings here (whole numbers with thousands separators, as the English text always showed
    them); texts stay texts so that they are translated too."""
    return Text(template, tuple((name, _value(value)) for name, value in params.items()))


def _value(value: object) -> str | Text | tuple[Text, ...]:
    if isinstance(value, Text):
        return value
    if isinstance(value, tuple | list) and all(isinstance(part, Text) for part in value):
        return tuple(value)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def from_dict(data: object) -> Text:
    """The inverse of `Text.as_dict`, for results stored as JSON."""
    if not isinstance(data, dict):
        return Text(str(data))
    params = data.get("params")
    pairs: list[tuple[str, str | Text | tuple[Text, ...]]] = []
    if isinstance(params, dict):
        for name, value in params.items():
            if isinstance(value, dict):
                pairs.append((str(name), from_dict(value)))
            elif isinstance(value, list):
                pairs.append((str(name), tuple(from_dict(part) for part in value)))
            else:
                pairs.append((str(name), str(value)))
    return Text(str(data.get("template", "")), tuple(pairs))
