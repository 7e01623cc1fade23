"""Quote pages. Reads go through `quotes.selectors` (someone else's quote is a 404), writes through
`quotes.services`; a refusal (DomainError) is shown as a message, in the business's words."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.errors import DomainError
from quotes import selectors, services
from quotes.document_views import DocumentRequestForm
from quotes.filters import QuoteFilter
from quotes.forms import (
    AcceptForm,
    DeclineForm,
    DiscountForm,
    LineAddForm,
    LineForm,
    QuoteCreateForm,
    RejectForm,
    TermsForm,
)
from quotes.models import Quote, QuoteLine, QuoteRevision, QuoteStatus, ShareLink


def _client_ip(request: HttpRequest) -> str | None:
    return request.META.get("REMOTE_ADDR") or None


def _quote(request: HttpRequest, pk: int) -> Quote:
    return get_object_or_404(selectors.quotes_visible_to(request.user), pk=pk)


def _revision(request: HttpRequest, pk: int, number: int) -> QuoteRevision:
    quote = _quote(request, pk)
    return get_object_or_404(quote.revisions.select_related("quote"), number=number)


def _back(revision: QuoteRevision) -> HttpResponseRedirect:
    url = reverse("quotes:quote-detail", args=[revision.quote_id])
    return redirect(f"{url}?rev={revision.number}")


def _refused(request: HttpRequest, exc: DomainError) -> None:
    details = " ".join(m for m in exc.errors.values() if m != exc.message)
    messages.error(request, f"{exc.message} {details}".strip())


@require_GET
@login_required
@permission_required("quotes.view_quote", raise_exception=True)
def quote_list(request: HttpRequest) -> HttpResponse:
    quotes = selectors.quotes_visible_to(request.user)
    quote_filter = QuoteFilter(request.GET or None, queryset=quotes, request=request)
    page = Paginator(quote_filter.qs, 25).get_page(request.GET.get("page"))
    params = request.GET.copy()
    params.pop("page", None)
    return render(
        request,
        "quotes/quote_list.html",
        {
            "filter": quote_filter,
            "page_obj": page,
            "quotes": page.object_list,
            "querystring": params.urlencode(),
            "filtered": bool(params),
        },
    )


@login_required
@permission_required("quotes.add_quote", raise_exception=True)
def quote_create(request: HttpRequest) -> HttpResponse:
    initial = {"design": request.GET.get("design"), "support_years": 1}
    form = QuoteCreateForm(request.POST or None, user=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            quote = services.quote_create(
                user=request.user,
                design=data["design"],
                customer=data["customer"],
                price_list=data["price_list"],
                currency=data["currency"] or None,
                exchange_rate=data["exchange_rate"],
                support_years=data["support_years"],
                title=data["title"],
            )
        except DomainError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, _("Quote %(number)s created.") % {"number": quote.number})
            return redirect("quotes:quote-detail", pk=quote.pk)
    return render(request, "quotes/quote_form.html", {"form": form})


@require_GET
@login_required
@permission_required("quotes.view_quote", raise_exception=True)
def quote_detail(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    revisions = list(selectors.revisions_of(quote))
    number = request.GET.get("rev")
    revision = next((r for r in revisions if str(r.number) == number), revisions[0])
    lines = list(revision.lines.order_by("position", "id"))
    can_change = request.user.has_perm("quotes.change_quote") and revision.is_editable
    is_latest = revision.pk == revisions[0].pk
    return render(
        request,
        "quotes/quote_detail.html",
        {
            "quote": quote,
            "revision": revision,
            "revisions": revisions,
            "groups": selectors.grouped_lines(lines),
            "show_margin": selectors.can_view_margin(request.user),
            "can_change": can_change,
            "can_approve": request.user.has_perm("quotes.approve_quote")
            and revision.status == QuoteStatus.PENDING_APPROVAL,
            "can_submit": can_change and revision.status == QuoteStatus.DRAFT,
            "can_send": can_change and revision.status in (QuoteStatus.DRAFT, QuoteStatus.APPROVED),
            "can_revise": is_latest
            and revision.status in (QuoteStatus.SENT, QuoteStatus.DECLINED, QuoteStatus.EXPIRED),
            "discount_form": DiscountForm(initial={"discount_percent": 0}),
            "line_add_form": LineAddForm(),
            "terms_form": TermsForm(
                initial={
                    "terms": revision.terms,
                    "validity_days": revision.validity_days,
                    "tax_rate": revision.tax_rate,
                }
            ),
            "reject_form": RejectForm(),
            "share_links": revision.share_links.all(),
            "audit_events": selectors.audit_events_of(quote)[:50],
            "decision": getattr(revision, "decision", None),
            "documents": revision.documents.order_by("-created_at"),
            "document_form": DocumentRequestForm(
                initial={"language": quote.customer.preferred_language}
            ),
        },
    )


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def revision_action(request: HttpRequest, pk: int, number: int, action: str) -> HttpResponse:
    revision = _revision(request, pk, number)
    try:
        if action == "submit":
            services.revision_submit(user=request.user, revision=revision)
            revision.refresh_from_db()
            if revision.status == QuoteStatus.PENDING_APPROVAL:
                messages.info(request, _("Submitted: a sales manager must approve it."))
            else:
                messages.success(request, _("Submitted: no approval needed, it can be sent."))
        elif action == "approve":
            services.revision_approve(user=request.user, revision=revision)
            messages.success(request, _("Approved."))
        elif action == "reject":
            form = RejectForm(request.POST)
            reason = form.data.get("reason", "")
            services.revision_reject(user=request.user, revision=revision, reason=reason)
            messages.info(request, _("Sent back to draft."))
        elif action == "send":
            services.revision_send(user=request.user, revision=revision)
            messages.success(request, _("Sent: the customer's link is below."))
        else:
            return HttpResponse(status=404)
    except DomainError as exc:
        _refused(request, exc)
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def quote_revise(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    try:
        revision = services.quote_revise(user=request.user, quote=quote)
    except DomainError as exc:
        _refused(request, exc)
        return redirect("quotes:quote-detail", pk=quote.pk)
    messages.success(request, _("New draft %(label)s.") % {"label": revision.label})
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def revision_discount(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = DiscountForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Enter a discount between 0 and 100%."))
        return _back(revision)
    try:
        services.revision_discount_apply(
            user=request.user,
            revision=revision,
            discount_percent=form.cleaned_data["discount_percent"],
        )
    except DomainError as exc:
        _refused(request, exc)
    else:
        _announce_approval_state(request, revision)
    return _back(revision)


def _announce_approval_state(request: HttpRequest, revision: QuoteRevision) -> None:
    revision.refresh_from_db()
    if revision.approval_reasons:
        messages.warning(
            request,
            _("Above the discount policy: a sales manager must approve before sending (%(why)s).")
            % {"why": "; ".join(r["policy"] for r in revision.approval_reasons)},
        )
    else:
        messages.success(request, _("Prices updated."))


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def terms_update(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = TermsForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errs in form.errors.values() for e in errs))
        return _back(revision)
    try:
        services.revision_terms_update(user=request.user, revision=revision, **form.cleaned_data)
    except DomainError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("Terms updated."))
    return _back(revision)


def _line(request: HttpRequest, pk: int, line_id: int) -> QuoteLine:
    quote = _quote(request, pk)
    return get_object_or_404(
        QuoteLine.objects.select_related("revision__quote"), pk=line_id, revision__quote=quote
    )


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def line_update(request: HttpRequest, pk: int, line_id: int) -> HttpResponse:
    line = _line(request, pk, line_id)
    form = LineForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errs in form.errors.values() for e in errs))
        return _back(line.revision)
    data: dict[str, Any] = form.cleaned_data
    try:
        services.revision_line_update(
            user=request.user,
            line=line,
            quantity=data["quantity"],
            discount_percent=data["discount_percent"],
            override_unit_price=data["override_unit_price"],
            is_optional=data["is_optional"],
            sku=data["sku"].strip() or None,
        )
    except DomainError as exc:
        _refused(request, exc)
    else:
        _announce_approval_state(request, line.revision)
    return _back(line.revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def line_add(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = LineAddForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(e for errs in form.errors.values() for e in errs))
        return _back(revision)
    data = form.cleaned_data
    try:
        services.revision_line_add(
            user=request.user,
            revision=revision,
            kind=data["kind"],
            sku=data["sku"].strip(),
            description=data["description"],
            quantity=data["quantity"] or 1,
            is_optional=data["is_optional"],
        )
    except DomainError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("Line added."))
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def line_delete(request: HttpRequest, pk: int, line_id: int) -> HttpResponse:
    line = _line(request, pk, line_id)
    try:
        services.revision_line_delete(user=request.user, line=line)
    except DomainError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("Line deleted."))
    return _back(line.revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def share_link_create(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    try:
        services.share_link_create(user=request.user, revision=revision)
    except DomainError as exc:
        _refused(request, exc)
    else:
        messages.success(request, _("New share link created."))
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def share_link_revoke(request: HttpRequest, pk: int, link_id: int) -> HttpResponse:
    quote = _quote(request, pk)
    link = get_object_or_404(
        ShareLink.objects.select_related("revision"), pk=link_id, revision__quote=quote
    )
    services.share_link_revoke(user=request.user, link=link)
    messages.success(request, _("Link withdrawn: it no longer opens the proposal."))
    return _back(link.revision)


# --- The customer's page (no login: the token is the key) -----------------------------------------


def _link_or_404(token: str) -> ShareLink:
    link = selectors.share_link_by_token(token)
    if link is None:
        from django.http import Http404

        raise Http404
    return link


def _proposal_context(link: ShareLink, **extra: Any) -> dict[str, Any]:
    revision = link.revision
    lines = list(revision.lines.order_by("position", "id"))
    return {
        "link": link,
        "revision": revision,
        "quote": revision.quote,
        "groups": selectors.grouped_lines(lines),
        "show_margin": False,
        "decision": getattr(revision, "decision", None),
        "answerable": revision.status == QuoteStatus.SENT,
        "accept_form": AcceptForm(optional_lines=[x for x in lines if x.is_optional]),
        "decline_form": DeclineForm(auto_id="decline_%s"),
        "pdf": selectors.revision_proposal_document(revision),
        **extra,
    }


@require_GET
def proposal(request: HttpRequest, token: str) -> HttpResponse:
    link = _link_or_404(token)
    services.share_link_view_record(
        link=link, ip=_client_ip(request), user_agent=request.META.get("HTTP_USER_AGENT", "")
    )
    response = render(request, "quotes/share/proposal.html", _proposal_context(link))
    # The site's Referrer-Policy (same-origin) keeps the token from leaking to other sites;
    # "no-referrer" would make Chromium send `Origin: null` and fail the CSRF check on accept.
    response["X-Robots-Tag"] = "noindex"
    return response


@require_POST
def proposal_accept(request: HttpRequest, token: str) -> HttpResponse:
    link = _link_or_404(token)
    optional = list(link.revision.lines.filter(is_optional=True))
    form = AcceptForm(request.POST, optional_lines=optional)
    if form.is_valid():
        try:
            services.revision_accept(
                link=link,
                name=form.cleaned_data["name"],
                email=form.cleaned_data["email"],
                ip=_client_ip(request),
                optional_line_ids=form.cleaned_data["optional_lines"],
                pdf_sha256=selectors.revision_document_sha256(link.revision, link),
            )
        except DomainError as exc:
            exc.add_to_form(form)
        else:
            messages.success(request, _("Thank you: your acceptance is recorded."))
            return redirect("share:proposal", token=token)
    context = _proposal_context(link, accept_form=form)
    return render(request, "quotes/share/proposal.html", context, status=400)


@require_POST
def proposal_decline(request: HttpRequest, token: str) -> HttpResponse:
    link = _link_or_404(token)
    form = DeclineForm(request.POST, auto_id="decline_%s")
    if form.is_valid():
        try:
            services.revision_decline(
                link=link,
                name=form.cleaned_data["name"],
                email=form.cleaned_data["email"],
                reason=form.cleaned_data["reason"],
                ip=_client_ip(request),
            )
        except DomainError as exc:
            exc.add_to_form(form)
        else:
            messages.info(request, _("Thank you: your answer is recorded."))
            return redirect("share:proposal", token=token)
    context = _proposal_context(link, decline_form=form)
    return render(request, "quotes/share/proposal.html", context, status=400)
