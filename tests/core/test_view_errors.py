"""core.view_errors: a domain refusal in an HTML view becomes a message or form errors, skips
the rest of its block, and nothing else is swallowed."""

import pytest
from django import forms
from django.contrib.messages import get_messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpRequest
from django.test import RequestFactory

from core.errors import DomainError, NotAllowed
from core.view_errors import refusal_text, refused_as_message, refused_on_form


@pytest.fixture
def request_():
    request = RequestFactory().post("/")
    request._messages = CookieStorage(request)
    return request


def _messages(request: HttpRequest) -> list[tuple[str, str]]:
    return [(m.level_tag, m.message) for m in get_messages(request)]


def _view(request: HttpRequest, error: Exception | None) -> str:
    """The shape the views have: the success path returns inside the block, a refusal falls
    through to the way back."""
    with refused_as_message(request):
        if error is not None:
            raise error
        return "done"
    return "back"


def test_a_refusal_is_an_error_message_and_the_view_goes_back(request_):
    assert _view(request_, NotAllowed("Only a draft is archived.")) == "back"
    assert _messages(request_) == [("error", "Only a draft is archived.")]


def test_no_refusal_no_message(request_):
    assert _view(request_, None) == "done"
    assert _messages(request_) == []


def test_the_rest_of_the_block_is_skipped(request_):
    ran = []
    with refused_as_message(request_):
        raise DomainError("Refused.")
        ran.append("after")  # the success message a view would add
    assert ran == []


def test_other_errors_are_not_swallowed(request_):
    with pytest.raises(ValueError, match="a bug"):
        _view(request_, ValueError("a bug"))
    assert _messages(request_) == []


def test_field_sentences_that_say_more_follow_the_message():
    error = DomainError(
        "Some fields need attention.",
        errors={"email": "Enter a valid email.", "name": "Some fields need attention."},
    )
    assert refusal_text(error) == "Some fields need attention. Enter a valid email."
    assert refusal_text(DomainError("Too late.", field="step")) == "Too late."


class _Form(forms.Form):
    name = forms.CharField()


def _refused_form(error: DomainError) -> _Form:
    form = _Form(data={"name": "Li"})
    assert form.is_valid()
    with refused_on_form(form):
        raise error
    return form


def test_a_refusal_naming_a_field_goes_beside_it():
    form = _refused_form(DomainError("That name is taken.", field="name"))
    assert form.errors == {"name": ["That name is taken."]}


def test_a_refusal_naming_no_field_goes_above_the_form():
    form = _refused_form(NotAllowed("The customer was not saved."))
    assert form.non_field_errors() == ["The customer was not saved."]
    assert "name" not in form.errors


def test_a_field_the_form_lacks_goes_above_it():
    form = _refused_form(DomainError("Refused.", errors={"crm_id": "Already used."}))
    assert form.non_field_errors() == ["Already used."]
