"""A very large design's first pages are drawn when it is saved (issue 27, item 3): the
elevations of 1,000,000 GPUs take 3.9 s to derive, and the engineer's first visit to the design
page's racks or the handover page was that long. A save queues `design_pages_warm`, which
derives them once and draws both pages in every language into the cache; the visit then reads
them. Here the threshold is lowered so that a 4,096-GPU design stands for a large one."""

import pytest
from django.conf import settings
from django.utils.translation import override

from planner import services
from planner.handover import services as handover
from tests.conftest import load_seed_catalog

LARGE = {"gpus": 4096, "nic_speed": 400, "fabric": "rail", "leaf": "64x400"}


@pytest.fixture
def lowered(monkeypatch):
    monkeypatch.setattr(services, "LARGE_DESIGN_SERVERS", 100)  # 4,096 GPUs: 512 servers


@pytest.fixture
def derivations(monkeypatch) -> list[int]:
    """Counts the engine derivations the pages' code asks for."""
    counted: list[int] = []
    real = handover.services.design_engine
    monkeypatch.setattr(
        handover.services, "design_engine", lambda **kw: counted.append(1) or real(**kw)
    )
    return counted


@pytest.mark.django_db
def test_a_large_saves_queues_the_drawing_and_a_small_one_does_not(engineer, lowered, monkeypatch):
    load_seed_catalog()
    queued: list[tuple[str, int]] = []
    monkeypatch.setattr(
        services, "send_on_commit", lambda task, pk, unsent: queued.append((task, pk))
    )
    large = services.design_create(owner=engineer, name="4k", request_data=LARGE)
    assert queued == [(services.WARM_PAGES_TASK, large.pk)]
    assert services.WARM_PAGES_TASK in settings.CELERY_TASK_ROUTES  # a queue takes it
    services.design_create(owner=engineer, name="64", request_data={**LARGE, "gpus": 64})
    assert queued == [(services.WARM_PAGES_TASK, large.pk)]  # 8 servers: nothing to draw


@pytest.mark.django_db
def test_after_the_drawing_both_pages_are_read_back_in_every_language(
    engineer, lowered, derivations
):
    load_seed_catalog()
    large = services.design_create(owner=engineer, name="4k", request_data=LARGE)
    # What a visit draws itself, before anything is kept: the reference for each language.
    expected = {}
    for language, _name in settings.LANGUAGES:
        with override(language):
            expected[language] = (
                handover.design_page_elevations(design=large)["svg"],
                handover.handover_page(design=large)["svg"],
                handover.handover_page(design=large, page="3")["svg"],
            )
    from django.core.cache import cache

    cache.clear()
    derivations.clear()
    drawn = handover.design_pages_warm(design_id=large.pk)
    assert drawn == [code for code, _name in settings.LANGUAGES]
    assert derivations == [1]  # one derivation for every language and both pages
    for language, _name in settings.LANGUAGES:
        with override(language):
            section = handover.design_page_elevations(design=large, lazy=True)
            first = handover.handover_page(design=large)
            # A later page was not drawn: it is drawn from the racks the warming kept.
            third = handover.handover_page(design=large, page="3")
            assert (section["svg"], first["svg"], third["svg"]) == expected[language]
    assert derivations == [1]  # the visits read what was drawn or kept


@pytest.mark.django_db
def test_nothing_is_drawn_for_a_small_design_a_draft_or_a_missing_one(
    engineer, lowered, derivations
):
    load_seed_catalog()
    small = services.design_create(owner=engineer, name="64", request_data={**LARGE, "gpus": 64})
    draft = services.design_save_draft(owner=engineer, request_data={"gpus": -1})
    assert handover.design_pages_warm(design_id=small.pk) == []
    assert handover.design_pages_warm(design_id=draft.pk) == []
    assert handover.design_pages_warm(design_id=10**9) == []
    assert derivations == []
