from decimal import Decimal

from django.conf import settings
from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.models import Job, Team
from quotes.pricing import PriceSource


class QuoteNumberCounter(models.Model):
    """The last quote number given out in a year. Locked (SELECT ... FOR UPDATE) while a quote is
    created, in the same transaction: numbers are gapless and never duplicated."""

    year = models.PositiveIntegerField(_("year"), unique=True)
    last_number = models.PositiveIntegerField(_("last number"), default=0)

    class Meta:
        verbose_name = _("quote number counter")
        verbose_name_plural = _("quote number counters")

    def __str__(self) -> str:
        return f"{self.year}: {self.last_number}"


class QuoteStatus(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PENDING_APPROVAL = "pending_approval", _("Pending approval")
    APPROVED = "approved", _("Approved")
    SENT = "sent", _("Sent")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    EXPIRED = "expired", _("Expired")
    SUPERSEDED = "superseded", _("Superseded")
    # Taken back after it was submitted or approved, to be changed: its content stays as it was
    # submitted (and approved), and a new draft revision carries the change.
    WITHDRAWN = "withdrawn", _("Withdrawn")


class Quote(models.Model):
    """A quote: one number, one or more revisions. `status`, `total` and `currency` mirror the
    latest revision, for lists and filters."""

    number = models.CharField(_("number"), max_length=20, unique=True)
    year = models.PositiveIntegerField(_("year"))
    sequence = models.PositiveIntegerField(_("sequence"))
    title = models.CharField(_("title"), max_length=200, blank=True)
    customer = models.ForeignKey(
        "customers.Customer",
        on_delete=models.PROTECT,
        related_name="quotes",
        verbose_name=_("customer"),
    )
    opportunity = models.ForeignKey(
        "customers.Opportunity",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="quotes",
        verbose_name=_("opportunity"),
    )
    design = models.ForeignKey(
        "planner.Design", on_delete=models.PROTECT, related_name="quotes", verbose_name=_("design")
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="quotes",
        verbose_name=_("owner"),
    )
    team = models.ForeignKey(
        Team, on_delete=models.PROTECT, related_name="quotes", verbose_name=_("team")
    )
    status = models.CharField(
        _("status"), max_length=20, choices=QuoteStatus.choices, default=QuoteStatus.DRAFT
    )
    currency = models.CharField(_("currency"), max_length=3, default="CNY")
    total = models.DecimalField(_("total"), max_digits=16, decimal_places=2, default=0)
    # An archived draft leaves the lists; it is kept (its number stays taken) and can be found
    # with the "archived" filter.
    archived_at = models.DateTimeField(_("archived at"), null=True, blank=True)
    # The sales engineer the customer deals with, as the documents and the share page name them:
    # {"name", "email", "phone"}, taken from the owner when the quote is made.
    sales_contact = models.JSONField(_("sales engineer"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("quote")
        verbose_name_plural = _("quotes")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["year", "sequence"], name="quote_unique_year_sequence")
        ]
        permissions = [
            ("approve_quote", _("Can approve quotes above the discount policy")),
            ("view_margin", _("Can view cost and margin on quotes")),
        ]

    def __str__(self) -> str:
        return self.number

    @property
    def contact(self) -> dict[str, str]:
        """The sales engineer to name to the customer (older quotes: the owner, without phone)."""
        contact = dict(self.sales_contact or {})
        if not contact.get("name"):
            contact["name"] = self.owner.get_full_name() or self.owner.get_username()
            contact["email"] = self.owner.email or ""
        contact.setdefault("email", "")
        contact.setdefault("phone", "")
        return contact

    @property
    def current_revision(self) -> "QuoteRevision | None":
        return self.revisions.order_by("-number").first()


class QuoteRevision(models.Model):
    """One version of a quote, with everything it was priced from frozen: the design snapshot,
    prices, currency and exchange rate, tax rate, terms and validity. Once sent it never changes
    (the services refuse); `revise` copies it into a new draft."""

    quote = models.ForeignKey(
        Quote, on_delete=models.CASCADE, related_name="revisions", verbose_name=_("quote")
    )
    number = models.PositiveIntegerField(_("revision"), default=0)
    status = models.CharField(
        _("status"), max_length=20, choices=QuoteStatus.choices, default=QuoteStatus.DRAFT
    )
    # What the revision was priced from: the design as the quote froze it (planner.frozen).
    # Shared by the revisions of a quote; PROTECT: nothing a revision was priced from goes.
    frozen_design = models.ForeignKey(
        "planner.FrozenDesign",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="revisions",
        verbose_name=_("frozen design"),
    )
    price_list_code = models.CharField(_("price list"), max_length=40, blank=True)
    price_list_currency = models.CharField(_("price list currency"), max_length=3, default="CNY")
    prices_are_samples = models.BooleanField(_("sample prices"), default=True)
    currency = models.CharField(_("currency"), max_length=3, default="CNY")
    exchange_rate = models.DecimalField(
        _("exchange rate"),
        max_digits=14,
        decimal_places=6,
        default=Decimal("1"),
        help_text=_("Units of the quote's currency per unit of the price list's currency."),
    )
    # VAT per line kind, as fractions (0.13); pages, forms and the API show and take percent.
    tax_rate = models.DecimalField(
        _("VAT on goods"), max_digits=6, decimal_places=4, default=Decimal("0.13")
    )
    services_tax_rate = models.DecimalField(
        _("VAT on services"), max_digits=6, decimal_places=4, default=Decimal("0.06")
    )
    freight_tax_rate = models.DecimalField(
        _("VAT on freight"), max_digits=6, decimal_places=4, default=Decimal("0.09")
    )
    # [{"phase": "design", "percent": "30"}, ...]: the plan's phases at whose completion a
    # share of the total is due; the shares sum to 100 (quotes.services.terms checks).
    payment_milestones = models.JSONField(_("payment milestones"), default=list, blank=True)
    # [{"rate": "13", "base": "1000.00", "tax": "130.00"}, ...] as priced, per VAT rate.
    tax_breakdown = models.JSONField(_("tax per rate"), default=list, blank=True)
    terms = models.TextField(_("terms"), blank=True)
    # The default terms as written in each language ({"en": ..., "zh-hans": ...}) when the code
    # wrote them (quotes.services.terms). While `terms` is still one of them, readers get their
    # own language; once `terms` is typed by hand it is shown as typed (`terms_in`).
    terms_written = models.JSONField(_("terms as written"), default=dict, blank=True)
    validity_days = models.PositiveIntegerField(_("validity (days)"), default=30)
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    support_years = models.PositiveSmallIntegerField(_("support years"), default=1)
    # Totals, as priced by quotes.pricing (kept for lists, the API and documents).
    list_total = models.DecimalField(max_digits=16, decimal_places=2, default=0)
    subtotal = models.DecimalField(_("subtotal"), max_digits=16, decimal_places=2, default=0)
    tax = models.DecimalField(_("tax"), max_digits=16, decimal_places=2, default=0)
    total = models.DecimalField(_("total"), max_digits=16, decimal_places=2, default=0)
    optional_total = models.DecimalField(max_digits=16, decimal_places=2, default=0)
    cost_total = models.DecimalField(max_digits=16, decimal_places=2, default=0)
    # A cost far above a price is a margin of minus millions of percent: 24 digits, as the
    # line's effective discount.
    margin_percent = models.DecimalField(max_digits=24, decimal_places=2, null=True, blank=True)
    max_discount_percent = models.DecimalField(max_digits=6, decimal_places=2, default=0)
    approval_reasons = models.JSONField(_("approval needed because"), default=list, blank=True)
    # What the revision says, hashed (quotes.content): its lines, terms, totals and design
    # snapshot, as of its last repricing. Submitting records it, approving binds to it, sending
    # checks it again, and every document records the one it was rendered from.
    content_sha256 = models.CharField(_("content SHA-256"), max_length=64, blank=True)
    # The customer's details as its documents print them (customers.details): taken from the
    # customer while the revision is a draft, frozen with it from submission. Empty on
    # revisions priced before they were kept: their documents read the customer's record.
    customer_details = models.JSONField(_("customer details"), default=dict, blank=True)
    submitted_sha256 = models.CharField(_("content submitted"), max_length=64, blank=True)
    approved_sha256 = models.CharField(_("content approved"), max_length=64, blank=True)
    # Bumped by every change of the revision or its lines: a save made from an older version is
    # refused (ETag / If-Match in the API, a hidden field in forms), never silently overwritten.
    version = models.PositiveIntegerField(_("version"), default=1)
    submitted_at = models.DateTimeField(null=True, blank=True)
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("approved by"),
    )
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("sent by"),
    )
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("quote revision")
        verbose_name_plural = _("quote revisions")
        ordering = ["quote", "number"]
        constraints = [
            models.UniqueConstraint(fields=["quote", "number"], name="quote_revision_unique")
        ]
        indexes = [models.Index(fields=["status", "valid_until"])]

    def __str__(self) -> str:
        return self.label

    @property
    def label(self) -> str:
        return revision_label(self.quote.number, self.number)

    @property
    def unpriced_line_count(self) -> int:
        """Lines still to be priced (catalog gaps without a price): the totals leave them out,
        and the revision cannot be submitted or sent until there are none. Reads the prefetched
        lines when there are."""
        return sum(1 for line in self.lines.all() if line.to_be_priced)

    @property
    def tax_percent(self) -> str:
        """0.1300 -> "13"; 0.0650 -> "6.5"."""
        return percent_text(self.tax_rate)

    @property
    def services_tax_percent(self) -> str:
        return percent_text(self.services_tax_rate)

    @property
    def freight_tax_percent(self) -> str:
        return percent_text(self.freight_tax_rate)

    @property
    def tax_rates(self) -> dict[str, Decimal]:
        """The VAT rate of each line kind (quotes.pricing's `tax_rates`)."""
        return {
            LineKind.PRODUCT: self.tax_rate,
            LineKind.SERVICE: self.services_tax_rate,
            LineKind.FREIGHT: self.freight_tax_rate,
        }

    def terms_in(self, language: str | None = None) -> str:
        """The terms in `language` (the active language when None): the code's text in that
        language while nobody has edited it, else the terms exactly as typed."""
        written = self.terms_written or {}
        if not self.terms or self.terms not in written.values():
            return self.terms
        language = (language or get_language() or "en").lower()
        key = "zh-hans" if language.startswith("zh") else "en"
        return str(written.get(key) or self.terms)

    @property
    def localized_terms(self) -> str:
        """The terms in the reader's (active) language: what pages and documents show."""
        return self.terms_in()

    @property
    def is_approved_for_customer(self) -> bool:
        """Whether a document of this revision may go to the customer unmarked: approved, or
        past approval (sent, accepted...), or a draft that needs no approval. A revision still
        waiting for approval, or a draft nobody has checked, prints as a draft."""
        if self.status == QuoteStatus.WITHDRAWN:
            return self.approved_at is not None  # withdrawn after its approval
        return self.status not in (QuoteStatus.DRAFT, QuoteStatus.PENDING_APPROVAL)


def percent_text(rate: Decimal) -> str:
    """A fraction as the percent people type: 0.1300 -> "13", 0.0650 -> "6.5"."""
    return format((rate * 100).normalize(), "f")


def revision_label(quote_number: str, revision: int) -> str:
    """Q-2026-00042 for the first version, Q-2026-00042-R1, -R2... for its revisions."""
    return f"{quote_number}-R{revision}" if revision else quote_number


class LineKind(models.TextChoices):
    PRODUCT = "product", _("Product")
    SERVICE = "service", _("Service")
    FREIGHT = "freight", _("Freight")
    NOTE = "note", _("Note")


class QuoteLine(models.Model):
    """A line, with the prices it was priced from frozen (in the price list's currency) and the
    priced result (in the quote's currency). A product line without a SKU stands in for an item
    the catalog has no product for (a catalog gap in the design): it is to be priced by hand
    (`override_unit_price`) or replaced with a catalog SKU."""

    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, related_name="lines", verbose_name=_("revision")
    )
    position = models.PositiveIntegerField(_("position"), default=0)
    kind = models.CharField(
        _("kind"), max_length=10, choices=LineKind.choices, default=LineKind.PRODUCT
    )
    plane = models.CharField(_("plane"), max_length=30, blank=True)
    tier = models.CharField(_("tier"), max_length=30, blank=True)
    sku = models.CharField(_("SKU"), max_length=64, blank=True)
    # Both languages, so a quote prints in either whatever language it was created in: the
    # English text (the catalog's name_en) and the Chinese one (name_zh). A blank one falls back
    # to the other (`description_in`). Text typed by hand is stored in both.
    description = models.TextField(_("description (English)"), blank=True)
    description_zh = models.TextField(_("description (Chinese)"), blank=True)
    quantity = models.PositiveIntegerField(_("quantity"), default=0)
    is_optional = models.BooleanField(_("optional"), default=False)
    # Frozen inputs, in the price list's currency.
    frozen_list_price = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    frozen_tiers = models.JSONField(default=list, blank=True)  # [[min quantity, "unit price"]]
    frozen_contract_price = models.DecimalField(
        max_digits=14, decimal_places=2, null=True, blank=True
    )
    frozen_unit_cost = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    discount_percent = models.DecimalField(
        _("discount %"), max_digits=5, decimal_places=2, default=Decimal("0")
    )
    override_unit_price = models.DecimalField(
        _("price override"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    # The unit cost of a line priced by hand (a catalog gap has no catalog cost), in the price
    # list's currency: without it the revision's margin is unknown and approval asks for it.
    override_unit_cost = models.DecimalField(
        _("unit cost"), max_digits=14, decimal_places=2, null=True, blank=True
    )
    # Bumped by every change of the line (optimistic locking, as the revision's `version`).
    version = models.PositiveIntegerField(_("version"), default=1)
    # Priced, in the quote's currency.
    price_source = models.CharField(_("price source"), max_length=10, blank=True)
    list_unit_price = models.DecimalField(
        _("list price"), max_digits=14, decimal_places=2, default=0
    )
    base_unit_price = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    # Derived from an override: a price far above the base is a discount of minus millions of
    # percent. 24 digits hold any ratio of two amounts under 10^14 to a cent (10^18 %).
    effective_discount_percent = models.DecimalField(max_digits=24, decimal_places=2, default=0)
    unit_price = models.DecimalField(_("unit price"), max_digits=14, decimal_places=2, default=0)
    line_total = models.DecimalField(_("line total"), max_digits=16, decimal_places=2, default=0)
    unit_cost = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    # The VAT rate the line was priced at (its kind's rate on the revision), as a fraction.
    tax_rate = models.DecimalField(
        _("VAT rate"), max_digits=6, decimal_places=4, default=Decimal("0")
    )

    class Meta:
        verbose_name = _("quote line")
        verbose_name_plural = _("quote lines")
        ordering = ["revision", "position", "id"]

    def __str__(self) -> str:
        return f"{self.sku or self.kind} x {self.quantity}"

    @property
    def to_be_priced(self) -> bool:
        """No SKU and no price entered yet (as last priced by `quotes.pricing`)."""
        return self.kind != LineKind.NOTE and self.price_source == PriceSource.TO_BE_PRICED

    def description_in(self, language: str | None = None) -> str:
        """The description in `language` (the active language when None), else the other one."""
        language = (language or get_language() or "en").lower()
        if language.startswith("zh"):
            return self.description_zh or self.description
        return self.description or self.description_zh

    @property
    def localized_description(self) -> str:
        """The description in the reader's (active) language: what pages and documents show."""
        return self.description_in()


class PolicyMetric(models.TextChoices):
    DISCOUNT_PERCENT = "discount_percent", _("Largest line discount (%) above")
    MARGIN_PERCENT = "margin_percent", _("Margin (%) below")
    TOTAL_AMOUNT = "total_amount", _("Total amount above")


class DiscountPolicy(models.Model):
    """A threshold that makes a revision need approval before it may be sent, and who approves
    it. Data, edited in the admin."""

    name = models.CharField(_("name"), max_length=120)
    metric = models.CharField(_("metric"), max_length=20, choices=PolicyMetric.choices)
    threshold = models.DecimalField(_("threshold"), max_digits=16, decimal_places=2)
    currency = models.CharField(
        _("currency"),
        max_length=3,
        blank=True,
        help_text=_("For total amounts only: the rule applies to quotes in this currency."),
    )
    approver_group = models.ForeignKey(
        "auth.Group",
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("approving role"),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        verbose_name = _("discount policy")
        verbose_name_plural = _("discount policies")
        ordering = ["metric", "threshold"]

    def __str__(self) -> str:
        return f"{self.name} ({self.get_metric_display()} {self.threshold})"


class ShareLink(models.Model):
    """A revocable link to a sent revision for the customer; the token (256 bits) is its key."""

    revision = models.ForeignKey(
        QuoteRevision,
        on_delete=models.CASCADE,
        related_name="share_links",
        verbose_name=_("revision"),
    )
    token = models.CharField(max_length=64, unique=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # The PDF this link last served, checked against its SHA-256 as it was sent: an acceptance
    # through the link records the hash of the bytes the customer actually received.
    served_sha256 = models.CharField(_("SHA-256 of the PDF last served"), max_length=64, blank=True)
    served_at = models.DateTimeField(_("PDF last served at"), null=True, blank=True)

    class Meta:
        verbose_name = _("share link")
        verbose_name_plural = _("share links")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.revision} ({self.token[:6]}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class ShareLinkView(models.Model):
    link = models.ForeignKey(ShareLink, on_delete=models.CASCADE, related_name="views")
    viewed_at = models.DateTimeField(auto_now_add=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-viewed_at"]

    def __str__(self) -> str:
        return f"{self.link_id} @ {self.viewed_at:%Y-%m-%d %H:%M}"


class Decision(models.TextChoices):
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")


class CustomerDecision(models.Model):
    """The customer's answer to a sent revision, through its share link."""

    revision = models.OneToOneField(
        QuoteRevision, on_delete=models.PROTECT, related_name="decision"
    )
    link = models.ForeignKey(ShareLink, on_delete=models.PROTECT, related_name="decisions")
    decision = models.CharField(_("decision"), max_length=10, choices=Decision.choices)
    name = models.CharField(_("name"), max_length=200)
    email = models.EmailField(_("email"))
    ip = models.GenericIPAddressField(_("IP address"), null=True, blank=True)
    decided_at = models.DateTimeField(_("time"), auto_now_add=True)
    reason = models.TextField(_("reason"), blank=True)
    optional_line_ids = models.JSONField(_("optional lines added"), default=list, blank=True)
    accepted_total = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    pdf_sha256 = models.CharField(_("SHA-256 of the PDF accepted"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("customer decision")
        verbose_name_plural = _("customer decisions")

    def __str__(self) -> str:
        return f"{self.revision}: {self.decision}"


class AuditAction(models.TextChoices):
    CREATED = "created", _("Created")
    STATUS_CHANGED = "status_changed", _("Status changed")
    APPROVED = "approved", _("Approved")
    PRICE_OVERRIDE = "price_override", _("Price override")
    LINE_CHANGED = "line_changed", _("Line changed")
    SHARE_LINK_CREATED = "share_link_created", _("Share link created")
    SHARE_LINK_REVOKED = "share_link_revoked", _("Share link revoked")
    SHARE_LINK_VIEWED = "share_link_viewed", _("Share link viewed")


class AuditEvent(models.Model):
    """Who did what to a quote, when, with the state before and after."""

    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="audit_events")
    revision = models.ForeignKey(
        QuoteRevision, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    actor_label = models.CharField(max_length=200, blank=True)  # e.g. the customer's name
    action = models.CharField(_("action"), max_length=30, choices=AuditAction.choices)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    created_at = models.DateTimeField(_("time"), auto_now_add=True, db_index=True)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.quote} {self.action} {self.created_at:%Y-%m-%d %H:%M}"


class DocumentKind(models.TextChoices):
    PROPOSAL = "proposal", _("Design proposal")
    PLAN = "plan", _("Implementation plan")


class DocumentStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RENDERING = "rendering", _("Rendering")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")


class Document(Job):
    """A PDF for one quote revision, and the job that renders it (`core.jobs`: lease, heartbeat,
    retries and sweep as for every job). One row per revision, kind, language, template version
    and start date: asking again returns the same document.

    Its file is immutable: stored under a name carrying the document's id and the SHA-256 of the
    bytes (`storage_name`), never shared with another document and never rewritten; `sha256`
    is the hash of exactly those bytes, and every download checks it again."""

    # A document's states keep the words the API, its webhooks and the pages have always shown.
    RUNNING = DocumentStatus.RENDERING
    DONE = DocumentStatus.READY

    revision = models.ForeignKey(
        QuoteRevision,
        on_delete=models.CASCADE,
        related_name="documents",
        verbose_name=_("quote revision"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=DocumentKind.choices)
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    template_version = models.CharField(_("template version"), max_length=20)
    start_date = models.DateField(_("project start"))
    status = models.CharField(
        _("status"), max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.QUEUED
    )
    file = models.FileField(_("file"), upload_to="documents/", blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64, blank=True)
    # The revision's content (QuoteRevision.content_sha256) the document was asked for and
    # rendered from: one that differs from the revision's now is superseded and never shared.
    content_sha256 = models.CharField(_("content SHA-256"), max_length=64, blank=True)
    size_bytes = models.PositiveIntegerField(_("size (bytes)"), null=True, blank=True)
    pages = models.PositiveIntegerField(_("pages"), null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("requested by"),
    )

    class Meta(Job.Meta):
        verbose_name = _("document")
        verbose_name_plural = _("documents")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "revision",
                    "kind",
                    "language",
                    "template_version",
                    "start_date",
                    "content_sha256",
                ],
                name="document_once_per_revision_content_language_version",
            )
        ]

    def __str__(self) -> str:
        return f"{self.revision} {self.kind} {self.language} ({self.status})"

    @property
    def is_draft(self) -> bool:
        """Rendered before its revision was approved, so marked as a draft on every page: its
        template version carries "-d" (`quotes.pdf.template_version_for`)."""
        return "d" in self.template_version.split("-")[1:]

    @property
    def is_superseded(self) -> bool:
        """Rendered from content its revision no longer has (a draft changed since): listed as
        superseded, never shared."""
        return self.content_sha256 != self.revision.content_sha256

    @property
    def is_shareable(self) -> bool:
        """What a customer may receive: a ready, unmarked document of exactly the content that
        was approved (quotes.selectors.revision_proposal_document)."""
        revision = self.revision
        return (
            self.status == DocumentStatus.READY
            and not self.is_draft
            and revision.is_approved_for_customer
            and self.content_sha256 == revision.approved_sha256
        )

    @property
    def filename(self) -> str:
        """The name the reader's browser saves it under (not the storage name)."""
        start = f"-{self.start_date:%Y%m%d}" if self.kind == DocumentKind.PLAN else ""
        return f"{self.revision.label}-{self.kind}-{self.language}{start}.pdf"

    def storage_name(self, sha256: str) -> str:
        """Where the bytes with this hash are stored: the document's own id and the hash are in
        the name, so no other document (another language, kind, start date or template
        version of the same revision) can ever write to it."""
        return (
            f"documents/{self.revision.quote.number}/"
            f"{self.pk}-{self.kind}-{self.language}-{sha256[:16]}.pdf"
        )
