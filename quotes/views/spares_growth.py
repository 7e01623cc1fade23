"""Buttons of the design page's "what it means" section and of the quote page: the recommended
spares as optional lines, a growth step as a revision. The services decide; this module answers
with a message and goes back to the quote."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.services import user_signed_in
from core.view_errors import refused_as_message
from quotes import selectors
from quotes.models import Quote
from quotes.services import quote_growth_revise, revision_spares_add


def _quote(request: HttpRequest, pk: int) -> Quote:
    return get_object_or_404(selectors.quotes_visible_to(request.user), pk=pk)


def _to_revision(quote: Quote, number: int) -> HttpResponse:
    url = reverse("quotes:quote-detail", args=[quote.pk])
    return redirect(f"{url}?rev={number}")


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def spares_add(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    revision = quote.revisions.order_by("-number").first()
    if revision is None:
        return redirect("quotes:quote-detail", pk=quote.pk)
    with refused_as_message(request):
        added = revision_spares_add(user=user_signed_in(request.user), revision=revision)
        messages.success(
            request,
            _("%(count)s spare lines added to %(label)s as options.")
            % {"count": len(added.lines), "label": revision.label},
        )
        if added.skipped:
            messages.warning(
                request,
                _("Not added (generic parts, not on the price list, or already there): %(parts)s")
                % {"parts": ", ".join(added.skipped)},
            )
    return _to_revision(quote, revision.number)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def growth_revise(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    raw = request.POST.get("step", "")
    step = int(raw) if raw.isdigit() else -1
    with refused_as_message(request):
        quoted = quote_growth_revise(user=user_signed_in(request.user), quote=quote, step=step)
        messages.success(
            request,
            _("%(label)s quotes the growth to %(gpus)s GPUs.")
            % {"label": quoted.revision.label, "gpus": quoted.step.gpus_after},
        )
        if quoted.skipped:
            messages.warning(
                request,
                _("Not added (generic parts or not on the price list): %(parts)s")
                % {"parts": ", ".join(quoted.skipped)},
            )
        return _to_revision(quote, quoted.revision.number)
    return redirect("quotes:quote-detail", pk=quote.pk)
