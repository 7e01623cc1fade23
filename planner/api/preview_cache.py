"""Answers of `POST /designs/preview/`, remembered per process.

A preview is a pure function of the validated request and the catalog snapshot: the engine
(engine) reads nothing else, and a snapshot's `version` is the hash of its content
(catalog.snapshot.snapshot_version). So the encoded answer is keyed by the canonical request
(its JSON with sorted keys), the snapshot's version and the active language (the engine speaks
no language today; the key keeps that true if it starts to). A catalog change gives a new
snapshot, hence a new version, hence a miss: no entry needs deleting (`current_catalog` notices
the change through the shared revision key, as every sizing does).

Sizing 1,024 GPUs and encoding the result cost most of a preview request (bench.load: about
two thirds of its time): the wizard asks for the same few requests again and again as a user
steps back and forth. Per process, not in Redis: a hit must cost less than the work it saves,
and the answers are bytes each worker can rebuild."""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Mapping

# At most this many answers, and none larger than this (a 1,000,000-GPU answer is not worth
# keeping): 256 x 64 KiB bounds the memory per worker at 16 MiB.
MAX_ENTRIES = 256
MAX_BODY_BYTES = 64 * 1024

Key = tuple[str, str, str]

_answers: OrderedDict[Key, bytes] = OrderedDict()
_lock = threading.Lock()  # threaded workers (gthread) share the dictionary


def preview_key(
    *, catalog_version: str, language: str, request_data: Mapping[str, object]
) -> Key | None:
    """The key of a preview, or None when the snapshot has no version (nothing to key on)."""
    if not catalog_version:
        return None
    canonical = json.dumps(request_data, sort_keys=True, separators=(",", ":"), default=str)
    return (catalog_version, language, canonical)


def preview_get(key: Key | None) -> bytes | None:
    if key is None:
        return None
    with _lock:
        body = _answers.get(key)
        if body is not None:
            _answers.move_to_end(key)
        return body


def preview_put(key: Key | None, body: bytes) -> None:
    if key is None or len(body) > MAX_BODY_BYTES:
        return
    with _lock:
        _answers[key] = body
        _answers.move_to_end(key)
        while len(_answers) > MAX_ENTRIES:
            _answers.popitem(last=False)


def preview_clear() -> None:
    with _lock:
        _answers.clear()
