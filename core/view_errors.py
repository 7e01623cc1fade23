"""Domain errors in HTML views: a refusal becomes the page's error message, or errors on the
form it came from. (The API maps them once too, in `core.api.errors`.)

Both are context managers around the service call and what follows a success, so that a refusal
skips the rest of the block and the view goes on after it::

    with refused_as_message(request):
        services.design_delete(design=design, user=user)
        messages.success(request, _("Design deleted."))
        return redirect("planner:design-list")
    return redirect("planner:design-detail", pk=design.pk)  # refused: back, saying why

Only `DomainError`s are caught: anything else is a bug and stays a server error."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType

from django.contrib import messages
from django.forms import BaseForm
from django.http import HttpRequest

from core.errors import DomainError


def refusal_text(error: DomainError) -> str:
    """The refusal in one message: its sentence, then any field's sentence that says more (a
    message has no fields to put them beside)."""
    details = " ".join(m for m in error.errors.values() if m != error.message)
    return f"{error.message} {details}".strip()


class Refusals:
    """Catches a `DomainError` raised in its block and hands it to `answer`."""

    def __init__(self, answer: Callable[[DomainError], None]) -> None:
        self._answer = answer

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        # `bool`, not `bool | None`: mypy then knows the block may end early and checks the code
        # after it.
        if isinstance(error, DomainError):
            self._answer(error)
            return True
        return False


def refused_as_message(request: HttpRequest) -> Refusals:
    """A refusal is shown as an error message on the next page the view leads to."""
    return Refusals(lambda error: messages.error(request, refusal_text(error)))


def refused_on_form(form: BaseForm) -> Refusals:
    """A refusal is shown on the form: beside the fields it names, else above them."""
    return Refusals(lambda error: error.add_to_form(form))
