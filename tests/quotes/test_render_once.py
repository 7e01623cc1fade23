"""Issue 15: a proposal render does each piece of work once. The quote's engine design and the
meaning chapter's are one sizing when the quote froze its design's request and snapshot, the
stored result is decoded once, and the cycle collector pause around a render always ends."""

import gc
import threading

import pytest
from django.utils import translation

import planner.models
from planner import services
from planner.frozen import SizedDesigns
from quotes.pdf import _collector_paused, document_context
from tests.conftest import load_seed_catalog
from tests.quotes.test_documents import make_quote


def _counting(monkeypatch, module, name):
    calls = []
    original = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.django_db
def test_a_proposal_sizes_its_design_once_and_decodes_its_result_once(engineer, monkeypatch):
    load_seed_catalog()
    quote = make_quote(engineer)
    revision = quote.current_revision
    # The quote froze the design as saved: same request, same catalog snapshot, same result.
    assert revision.frozen_design.request == quote.design.request
    assert revision.frozen_design.sizing_snapshot_id == quote.design.sizing_snapshot_id
    sized = _counting(monkeypatch, services, "_sized")
    decoded_by_design = _counting(monkeypatch, planner.models, "result_from_json")
    with translation.override("en"):
        context, _attachments = document_context(
            revision, kind="proposal", start_date=None, progress=lambda percent, step: None
        )
    # Before: the quote's design was sized for the graph check and again for the meaning
    # chapter, and the stored result decoded once by the render and three times by the chapter.
    assert len(sized) == 1
    assert len(decoded_by_design) == 1  # the frozen design's, read once by the whole render
    assert context["meaning"] is not None
    assert context["failures"]


def test_sized_designs_sizes_each_request_on_each_snapshot_once():
    designs = SizedDesigns()
    sizings = []

    def size(tag):
        def run():
            sizings.append(tag)
            return object()

        return run

    first = designs.get(snapshot_sha256="a" * 64, request_data={"gpus": 64}, size=size("a"))
    again = designs.get(snapshot_sha256="a" * 64, request_data={"gpus": 64}, size=size("b"))
    other = designs.get(snapshot_sha256="a" * 64, request_data={"gpus": 128}, size=size("c"))
    elsewhere = designs.get(snapshot_sha256="b" * 64, request_data={"gpus": 64}, size=size("d"))
    assert first is again
    assert other is not first
    assert elsewhere is not first
    assert sizings == ["a", "c", "d"]
    # No snapshot: the catalog has no content address to key on, so it is sized each time.
    designs.get(snapshot_sha256="", request_data={"gpus": 64}, size=size("e"))
    designs.get(snapshot_sha256="", request_data={"gpus": 64}, size=size("f"))
    assert sizings[-2:] == ["e", "f"]


def test_the_collector_is_back_on_after_a_render_even_a_failed_one():
    inside = []

    def fails_while_paused():
        with _collector_paused():
            inside.append(gc.isenabled())
            raise RuntimeError("template error")

    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        fails_while_paused()
    assert inside == [False]
    assert gc.isenabled()


def test_the_collector_stays_off_when_it_was_off_before():
    gc.disable()
    try:
        with _collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_overlapping_renders_turn_the_collector_on_only_when_the_last_ends():
    first_inside, second_done, release = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with _collector_paused():
            first_inside.set()
            release.wait(5)
            seen["first, after the second ended"] = gc.isenabled()

    def second():
        first_inside.wait(5)
        with _collector_paused():
            pass
        seen["second ended while the first renders"] = gc.isenabled()
        second_done.set()
        release.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {
        "second ended while the first renders": False,
        "first, after the second ended": False,
    }
    assert gc.isenabled()
