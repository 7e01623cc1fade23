"""A domain error's problem title reads in the language of its detail (RFC 9457's `title`, "a
short, human-readable summary"): it was the error's code with spaces, English on every page."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from core.vocabulary import ERROR_TITLES
from tests.conftest import load_seed_catalog

# 30 active trays in a rack of 18: the engine refuses the request, naming the field.
TOO_MANY_TRAYS = {"gpus": 576, "system": "gb200-nvl72", "active_trays_per_rack": 30}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "title", "words"),
    [("en", "Invalid design request", "cannot exceed"), ("zh-hans", "设计请求无效", "不能超过")],
)
def test_a_refused_design_request_is_titled_in_the_readers_language(
    engineer, language, title, words
):
    load_seed_catalog()
    client = APIClient()
    client.force_authenticate(engineer)
    answer = client.post(
        "/api/v1/designs/preview/", TOO_MANY_TRAYS, format="json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == "invalid_design_request"
    assert body["title"] == title
    assert words in body["errors"]["active_trays_per_rack"][0]


def test_every_domain_error_code_has_a_title() -> None:
    # Each DomainError subclass's code (found by walking the classes), besides the health
    # words that are not errors, is named in ERROR_TITLES.
    import importlib
    import pkgutil

    from core.errors import DomainError

    for package in ("core", "catalog", "customers", "planner", "quotes"):
        root = importlib.import_module(package)
        for module in pkgutil.walk_packages(root.__path__, f"{package}."):
            if ".migrations" not in module.name and ".management" not in module.name:
                importlib.import_module(module.name)
    codes: set[str] = set()
    pending = [DomainError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        code = getattr(cls, "code", "")
        if cls is not DomainError and code:
            codes.add(code)
    assert codes
    assert codes <= set(ERROR_TITLES), sorted(codes - set(ERROR_TITLES))
