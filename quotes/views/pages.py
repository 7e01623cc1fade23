"""Quote pages. Reads go through `quotes.selectors` (someone else's quote is a 404), writes through
`quotes.services`; a refusal (DomainError) is shown as a message, in the business's words. Which
buttons a page shows is asked of `quotes.transitions` (the context's `actions`), never decided
here from a status."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.downloads import download
from core.errors import DomainError
from core.services import user_signed_in
from core.view_errors import refusal_text, refused_as_message, refused_on_form
from core.vocabulary import policy_label
from quotes import exports, selectors, services, transitions
from quotes.documents import document_request
from quotes.filters import QuoteFilter
from quotes.forms import (
    AcceptForm,
    DeclineForm,
    DiscountForm,
    FreightForm,
    LineAddForm,
    LineDeleteForm,
    LineForm,
    LinesGridForm,
    QuoteCreateForm,
    RejectForm,
    TermsForm,
)
from quotes.history import history_rows
from quotes.models import DocumentStatus, LineKind, Quote, QuoteLine, QuoteRevision, ShareLink
from quotes.services.errors import QuoteInvalid, VersionConflict
from quotes.services.lines_grid import (
    DISCOUNT,
    GRID_KINDS,
    QUANTITY,
    UNIT_PRICE,
    category_label,
    cell_name,
    grid_numbers,
    line_categories,
)
from quotes.services.terms import milestones_shown
from quotes.transitions import Action
from quotes.views.documents import DocumentRequestForm
from quotes.views.share import share_panels


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


@require_GET
@login_required
@permission_required("quotes.view_quote", raise_exception=True)
def quote_list(request: HttpRequest) -> HttpResponse:
    quotes = selectors.quotes_listed_to(request.user)
    # Archived drafts leave the list; `?archived=1` shows them (to restore or delete).
    show_archived = request.GET.get("archived") == "1"
    quotes = quotes.filter(archived_at__isnull=not show_archived)
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
            "show_archived": show_archived,
        },
    )


@login_required
@permission_required("quotes.add_quote", raise_exception=True)
def quote_create(request: HttpRequest) -> HttpResponse:
    initial = {"support_years": 1, **request.GET.dict()}
    form = QuoteCreateForm(request.POST or None, user=user_signed_in(request.user), initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with refused_on_form(form):
            quote = services.quote_create(
                user=user_signed_in(request.user),
                design=data["design"],
                customer=data["customer"],
                price_list=data["price_list"],
                currency=data["currency"] or None,
                exchange_rate=data["exchange_rate"],
                support_years=data["support_years"],
                title=data["title"],
                contact_phone=data["contact_phone"] or None,
            )
            messages.success(request, _("Quote %(number)s created.") % {"number": quote.number})
            return redirect("quotes:quote-detail", pk=quote.pk)
    return render(request, "quotes/quote_form.html", {"form": form})


def _common_discount(lines: list[QuoteLine]) -> Decimal | None:
    """The discount every product line has, shown in the "all products" box so that it says what
    was applied; None (an empty box) when the lines differ."""
    discounts = {line.discount_percent for line in lines if line.kind == LineKind.PRODUCT}
    return discounts.pop() if len(discounts) == 1 else None


@require_GET
@login_required
@permission_required("quotes.view_quote", raise_exception=True)
def quote_detail(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    context = _detail_context(request, quote, request.GET.get("rev"))
    return render(request, "quotes/quote_detail.html", context)


def _detail_context(
    request: HttpRequest,
    quote: Quote,
    number: str | None,
    *,
    grid: LinesGridForm | None = None,
) -> dict[str, Any]:
    """The quote page's context, for the revision `number` (the latest when None); with `grid`,
    the lines grid as posted (what was typed, and its errors) instead of the stored values."""
    revisions = list(selectors.revisions_of(quote))
    revision = next((r for r in revisions if str(r.number) == number), revisions[0])
    lines = list(revision.lines.order_by("position", "id"))
    share_links = list(revision.share_links.all())
    actions = transitions.actions_for(
        request.user,
        revision,
        is_latest=revision.pk == revisions[0].pk,
    )
    if "edit" in actions:
        grid = grid if grid is not None else _grid_form(lines, None, revision)
        _attach_rows(grid, lines)
    else:
        grid = None
    return {
        "quote": quote,
        "revision": revision,
        "revisions": revisions,
        "groups": selectors.grouped_lines(lines),
        "show_margin": selectors.can_view_margin(request.user),
        "actions": actions,
        "grid": grid,
        # Approval reasons matter while the revision can still change (is not yet sent).
        # Not yet sent: a draft, or submitted and waiting (the approval callout shows).
        "is_open": any(
            transitions.allows(revision.status, action) for action in (Action.EDIT, Action.WITHDRAW)
        ),
        "discount_form": DiscountForm(initial={"discount_percent": _common_discount(lines)}),
        "line_add_form": LineAddForm(),
        "terms_form": TermsForm(initial=TermsForm.initial_for(revision)),
        "freight_form": FreightForm(initial={"freight": _freight_amount(lines)}),
        "milestones": milestones_shown(revision.payment_milestones),
        "reject_form": RejectForm(),
        "share_links": share_links,
        "share_panels": share_panels(request, revision, share_links),
        "history": history_rows(selectors.audit_events_of(quote)[:50]),
        "decision": getattr(revision, "decision", None),
        "documents": revision.documents.order_by("-created_at"),
        "document_form": DocumentRequestForm(
            initial={"language": quote.customer.preferred_language}
        ),
    }


def _grid_form(lines: list[QuoteLine], data: Any, revision: QuoteRevision) -> LinesGridForm:
    """The grid form over the lines it edits, at the revision's version."""
    editable = [line for line in lines if line.kind in GRID_KINDS]
    categories = line_categories(editable)
    return LinesGridForm(
        data,
        lines=editable,
        categories=sorted(set(categories.values()), key=category_label),
        initial={"version": revision.version},
    )


def _attach_rows(form: LinesGridForm, lines: list[QuoteLine]) -> None:
    """Each line the grid edits gets its row for the template (`line.grid`): its cells, number
    and catalog category."""
    editable = [line for line in lines if line.kind in GRID_KINDS]
    categories = line_categories(editable)
    numbers = grid_numbers(lines)
    for line in editable:
        if cell_name(line.pk, QUANTITY) not in form.fields:
            continue  # added since the grid was posted: shown read-only until the page reloads
        row: dict[str, Any] = {
            cell: form[cell_name(line.pk, cell)]
            for cell in (QUANTITY, UNIT_PRICE, DISCOUNT, "is_optional")
        }
        row["number"] = numbers.get(line.pk)
        row["category"] = categories.get(line.pk, "")
        setattr(line, "grid", row)  # noqa: B010 (a template's attribute, not a model field)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def revision_lines(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The grid's one save: every line's cells and a category's discount, or nothing. Refused,
    the page comes back with what was typed and each error beside its cell."""
    quote = _quote(request, pk)
    revision = get_object_or_404(quote.revisions, number=number)
    form = _grid_form(list(revision.lines.order_by("position", "id")), request.POST, revision)
    status = 400
    if form.is_valid():
        try:
            services.revision_lines_update(
                user=user_signed_in(request.user),
                quote=quote,
                revision_number=number,
                version=form.cleaned_data["version"],
                changes=form.cells(),
                **form.category_change(),
            )
        except (QuoteInvalid, VersionConflict) as error:  # the cells, or a page gone stale
            error.add_to_form(form)
            status = error.http_status
        except DomainError as error:  # no longer editable...: no grid left to show it on
            messages.error(request, refusal_text(error))
            return _back(revision)
        else:
            _announce_approval_state(request, revision)
            return _back(revision)
    context = _detail_context(request, quote, str(number), grid=form)
    if context["grid"] is None:
        with refused_as_message(request):
            transitions.require(Action.EDIT, revision)
        return _back(revision)
    return render(request, "quotes/quote_detail.html", context, status=status)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def revision_action(request: HttpRequest, pk: int, number: int, action: str) -> HttpResponse:
    revision = _revision(request, pk, number)
    with refused_as_message(request):
        if action == "submit":
            revision = services.revision_submit(
                user=user_signed_in(request.user), revision=revision
            )
            if transitions.allows(revision.status, Action.APPROVE):
                messages.info(request, _("Submitted: a sales manager must approve it."))
            else:
                messages.success(request, _("Submitted: no approval needed, it can be sent."))
        elif action == "approve":
            services.revision_approve(user=user_signed_in(request.user), revision=revision)
            messages.success(request, _("Approved."))
        elif action == "reject":
            form = RejectForm(request.POST)
            reason = form.data.get("reason", "")
            services.revision_reject(
                user=user_signed_in(request.user), revision=revision, reason=reason
            )
            messages.info(request, _("Sent back to draft."))
        elif action == "send":
            services.revision_send(user=user_signed_in(request.user), revision=revision)
            messages.success(
                request,
                _(
                    "Sent: the customer's link is below. The approved proposal is being rendered; "
                    "the link serves it as soon as it is ready."
                ),
            )
        elif action == "withdraw":
            revision = services.revision_withdraw(
                user=user_signed_in(request.user), revision=revision
            )
            messages.info(
                request,
                _("Withdrawn: %(label)s is a new draft for your change; submit it again when done.")
                % {"label": revision.label},
            )
        else:
            return HttpResponse(status=404)
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def quote_revise(request: HttpRequest, pk: int) -> HttpResponse:
    quote = _quote(request, pk)
    with refused_as_message(request):
        revision = services.quote_revise(user=user_signed_in(request.user), quote=quote)
        messages.success(request, _("New draft %(label)s.") % {"label": revision.label})
        return _back(revision)
    return redirect("quotes:quote-detail", pk=quote.pk)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def revision_discount(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = DiscountForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Enter a discount between 0 and 100%."))
        return _back(revision)
    with refused_as_message(request):
        services.revision_discount_apply(
            user=user_signed_in(request.user),
            revision=revision,
            discount_percent=form.cleaned_data["discount_percent"],
            expected_version=form.cleaned_data["version"],
        )
        _announce_approval_state(request, revision)
    return _back(revision)


def _announce_approval_state(request: HttpRequest, revision: QuoteRevision) -> None:
    revision.refresh_from_db()
    if revision.approval_reasons:
        messages.warning(
            request,
            _("Above the discount policy: a sales manager must approve before sending (%(why)s).")
            # Each policy named in the reader's words, never its stored (English) name.
            % {"why": "; ".join(policy_label(r) for r in revision.approval_reasons)},
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
        messages.error(request, _form_errors(form))
        return _back(revision)
    data = form.cleaned_data
    with refused_as_message(request):
        services.revision_commercial_update(
            user=user_signed_in(request.user),
            revision=revision,
            goods_tax_percent=data["goods_tax_percent"],
            services_tax_percent=data["services_tax_percent"],
            freight_tax_percent=data["freight_tax_percent"],
            payment_milestones=form.milestones(),
            terms=None if data["regenerate_terms"] else data["terms"],
            validity_days=data["validity_days"],
            regenerate_terms=data["regenerate_terms"],
            expected_version=data["version"],
        )
        messages.success(request, _("Terms updated."))
    return _back(revision)


def _form_errors(form: Any) -> str:
    """Every error of a form, each naming its field by its label (never its code)."""
    parts: list[str] = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else ""
        parts.extend(f"{label}: {error}" if label else str(error) for error in errors)
    return " ".join(parts)


def _freight_amount(lines: list[QuoteLine]) -> Any:
    return next((line.override_unit_price for line in lines if line.kind == LineKind.FREIGHT), None)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def freight_update(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = FreightForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return _back(revision)
    with refused_as_message(request):
        services.revision_freight_set(
            user=user_signed_in(request.user),
            revision=revision,
            amount=form.cleaned_data["freight"],
            expected_version=form.cleaned_data["version"],
        )
        messages.success(request, _("Freight updated."))
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def quote_archive(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Archive, restore or delete a draft quote never sent."""
    quote = _quote(request, pk)
    with refused_as_message(request):
        if action == "delete":
            number = services.quote_delete(user=user_signed_in(request.user), quote=quote)
            messages.success(request, _("Quote %(number)s deleted.") % {"number": number})
            return redirect("quotes:quote-list")
        services.quote_archive(
            user=user_signed_in(request.user), quote=quote, archived=action == "archive"
        )
        if action == "archive":
            messages.success(request, _("Archived: the quote left the lists."))
        else:
            messages.success(request, _("Restored."))
    return redirect("quotes:quote-detail", pk=quote.pk)


@require_GET
@login_required
@permission_required("quotes.view_quote", raise_exception=True)
def quote_xlsx(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The revision as a spreadsheet for the customer's procurement."""
    revision = _revision(request, pk, number)
    content = exports.quote_xlsx(revision, language=translation.get_language() or "en")
    return download(content, filename=f"{revision.label}.xlsx", content_type=exports.XLSX_TYPE)


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
        messages.error(request, " ".join(str(e) for errs in form.errors.values() for e in errs))
        return _back(line.revision)
    data: dict[str, Any] = form.cleaned_data
    # The grid (revision_lines) carries quantities, prices and the optional flag; the line's own
    # form only what the grid lacks: a SKU, and a unit cost (for those who see margins, on lines
    # priced by hand). What a post leaves out stays as it is; an empty input clears it.
    posted = {
        name: data[name]
        for name in ("override_unit_price", "override_unit_cost", "is_optional")
        if name in request.POST
    }
    with refused_as_message(request):
        services.revision_line_update(
            user=user_signed_in(request.user),
            line=line,
            quantity=data["quantity"],
            discount_percent=data["discount_percent"],
            sku=data["sku"].strip() or None,
            expected_version=data["version"],
            **posted,
        )
        _announce_approval_state(request, line.revision)
    return _back(line.revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def line_add(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    form = LineAddForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errs in form.errors.values() for e in errs))
        return _back(revision)
    data = form.cleaned_data
    with refused_as_message(request):
        services.revision_line_add(
            user=user_signed_in(request.user),
            revision=revision,
            kind=data["kind"],
            sku=data["sku"].strip(),
            description=data["description"],
            quantity=data["quantity"] or 1,
            is_optional=data["is_optional"],
            expected_version=data["version"],
        )
        messages.success(request, _("Line added."))
    return _back(revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def line_delete(request: HttpRequest, pk: int, line_id: int) -> HttpResponse:
    line = _line(request, pk, line_id)
    form = LineDeleteForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return _back(line.revision)
    with refused_as_message(request):
        services.revision_line_delete(
            user=user_signed_in(request.user),
            line=line,
            expected_version=form.cleaned_data["version"],
        )
        messages.success(request, _("Line deleted."))
    return _back(line.revision)


@require_POST
@login_required
@permission_required("quotes.change_quote", raise_exception=True)
def share_link_create(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    revision = _revision(request, pk, number)
    with refused_as_message(request):
        services.share_link_create(user=user_signed_in(request.user), revision=revision)
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
    with refused_as_message(request):
        services.share_link_revoke(user=user_signed_in(request.user), link=link)
        messages.success(request, _("Link withdrawn: it no longer opens the proposal."))
    return _back(link.revision)


# --- The customer's page (no login: the token is the key) -----------------------------------------


def _link_or_404(token: str) -> ShareLink:
    link = selectors.share_link_by_token(token)
    if link is None:
        raise Http404
    return link


def shared_language(language: str | None) -> str:
    """The site language a share page is read in, as documents name it ("zh-hans", "en")."""
    return "zh-hans" if (language or "").lower().startswith("zh") else "en"


def _shared_pdf(link: ShareLink) -> dict[str, Any]:
    """The approved proposal in the customer's preferred language first (the one the quote
    was written for), then in the page's language when the reader reads another (issue 24);
    each asked for when it is not rendered yet."""
    revision = link.revision
    preferred = shared_language(revision.quote.customer.preferred_language)
    page = shared_language(get_language())
    pdfs: list[Any] = []
    pending = False
    for language in dict.fromkeys((preferred, page)):
        pdf = selectors.revision_proposal_document(revision, language)
        if pdf is not None:
            pdfs.append(pdf)
        elif transitions.allows(revision.status, Action.SHARE):
            document = document_request(user=link.created_by, revision=revision, language=language)
            pending = pending or document.status != DocumentStatus.FAILED
    return {"pdf": pdfs[0] if pdfs else None, "other_pdfs": pdfs[1:], "pdf_pending": pending}


def _proposal_context(link: ShareLink, **extra: Any) -> dict[str, Any]:
    revision = link.revision
    lines = list(revision.lines.order_by("position", "id"))
    refusal = transitions.decision_refusal(revision, link, today=timezone.localdate())
    return {
        "link": link,
        "revision": revision,
        "quote": revision.quote,
        "groups": selectors.grouped_lines(lines),
        "show_margin": False,
        "decision": getattr(revision, "decision", None),
        "actions": frozenset(),  # the customer's page offers no staff action
        "answerable": refusal is None,
        "refusal": refusal.message if refusal is not None else "",
        "accept_form": AcceptForm(optional_lines=[x for x in lines if x.is_optional]),
        "decline_form": DeclineForm(auto_id="decline_%s"),
        **_shared_pdf(link),
        "milestones": milestones_shown(revision.payment_milestones),
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
        with refused_on_form(form):
            services.revision_accept(
                link=link,
                name=form.cleaned_data["name"],
                email=form.cleaned_data["email"],
                ip=_client_ip(request),
                optional_line_ids=form.cleaned_data["optional_lines"],
                pdf_sha256=selectors.revision_document_sha256(link.revision, link),
            )
            messages.success(request, _("Thank you: your acceptance is recorded."))
            return redirect("share:proposal", token=token)
    context = _proposal_context(link, accept_form=form)
    return render(request, "quotes/share/proposal.html", context, status=400)


@require_POST
def proposal_decline(request: HttpRequest, token: str) -> HttpResponse:
    link = _link_or_404(token)
    form = DeclineForm(request.POST, auto_id="decline_%s")
    if form.is_valid():
        with refused_on_form(form):
            services.revision_decline(
                link=link,
                name=form.cleaned_data["name"],
                email=form.cleaned_data["email"],
                reason=form.cleaned_data["reason"],
                ip=_client_ip(request),
            )
            messages.info(request, _("Thank you: your answer is recorded."))
            return redirect("share:proposal", token=token)
    context = _proposal_context(link, decline_form=form)
    return render(request, "quotes/share/proposal.html", context, status=400)
