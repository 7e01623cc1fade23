"""Logging filters. `RedactShareTokens` removes the customer's share-link tokens (/s/<token>/...)
from every log line: a token is the key to a proposal, and logs are read by more people, and kept
longer, than the quote. It rewrites the message, its arguments (gunicorn's access log passes a
dict of fields: request line, path, referer) and the `request` Django attaches to its records.

Installed on the console handler (settings.LOGGING), which every propagating logger reaches, and
on gunicorn's access and error loggers (core.apps), which do not propagate."""

import logging
import re
from typing import Any

SHARE_TOKEN = re.compile(r"/s/[^/\s?#\"'<>]+")
REDACTED = "/s/[redacted]"


def redact(text: str) -> str:
    return SHARE_TOKEN.sub(REDACTED, text)


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bytes):
        return redact(value.decode("utf-8", "replace"))
    return value


class RedactShareTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, dict):
            # In place: gunicorn's atoms are a dict subclass that answers "-" for absent keys.
            for key, value in list(record.args.items()):
                record.args[key] = _redacted(value)
        elif isinstance(record.args, tuple):
            record.args = tuple(_redacted(value) for value in record.args)
        request = getattr(record, "request", None)
        if request is not None and not isinstance(request, str):
            # Django's records carry the request; formatters print its repr, path included.
            record.request = redact(repr(request))
        return True


def install_on_gunicorn_loggers() -> None:
    for name in ("gunicorn.access", "gunicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactShareTokens) for f in logger.filters):
            logger.addFilter(RedactShareTokens())
