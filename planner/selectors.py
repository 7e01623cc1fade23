"""Reads for designs, and the catalog snapshot the engine sizes against."""

import time
import uuid
from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from catalog.models import Product
from catalog.selectors import catalog_snapshot
from core.errors import DomainError
from core.selectors import owned_or_team
from engine.catalog import CatalogSnapshot
from planner.models import Design

CATALOG_REVISION_KEY = "planner:catalog-revision"
# Even without a change signal (e.g. a bulk SQL edit), a snapshot is never older than this.
SNAPSHOT_MAX_AGE_S = 300.0

_snapshot: tuple[str, float, CatalogSnapshot] | None = None


def catalog_changed() -> None:
    """Called whenever a catalog row is saved or deleted (see planner.signals)."""
    cache.set(CATALOG_REVISION_KEY, uuid.uuid4().hex, None)


def current_catalog() -> CatalogSnapshot:
    """The catalog snapshot, rebuilt only when the catalog changed: building it costs far more
    than sizing a design. The revision lives in the shared cache, so every process notices."""
    global _snapshot
    revision = cache.get(CATALOG_REVISION_KEY)
    if revision is None:
        revision = uuid.uuid4().hex
        cache.add(CATALOG_REVISION_KEY, revision, None)
        revision = cache.get(CATALOG_REVISION_KEY, revision)
    now = time.monotonic()
    if _snapshot is None or _snapshot[0] != revision or now - _snapshot[1] > SNAPSHOT_MAX_AGE_S:
        _snapshot = (revision, now, catalog_snapshot())
    return _snapshot[2]


def product_names(skus: Iterable[str]) -> dict[str, str]:
    """The catalog's names of these products in the active language, in one query: the engine's
    snapshot carries only the English name it sizes with. A SKU no longer in the catalog, or
    with no name, is left out (the caller keeps the snapshot's name)."""
    wanted = set(skus)
    if not wanted:
        return {}
    products = Product.objects.filter(sku__in=wanted).only("sku", "name_en", "name_zh")
    return {product.sku: product.name for product in products if product.name}


def designs_visible_to(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Design]:
    """An engineer sees designs of their own and of their team; an administrator sees all."""
    designs = Design.objects.select_related("owner", "team", "customer")
    if not user.is_authenticated:
        return designs.none()
    if getattr(user, "is_superuser", False):
        return designs
    # One lazy query: nothing runs until the designs are read (a permission check that only
    # needs the model must not pay for the caller's team lookup).
    return designs.filter(owned_or_team(user.pk))


class DesignNotFound(DomainError):
    """No such design for this user: missing, or another team's (they look the same, a 404)."""

    http_status = 404
    code = "not_found"

    def __init__(self, requested: object = None) -> None:
        super().__init__(_("No such design."))
        self.requested = requested


def design_for(*, user: AbstractBaseUser | AnonymousUser, design_id: object) -> Design:
    """The design `design_id` if `user` may see it: the one place that decides, for the API's
    path ids and body references alike. Anything that is not a whole number is not found."""
    pk = design_id if isinstance(design_id, int) and not isinstance(design_id, bool) else None
    if isinstance(design_id, str) and design_id.strip().isdigit():
        pk = int(design_id.strip())
    if pk is not None and not 0 < pk < 2**63:  # no row has it; a larger one overflows the column
        pk = None
    design = designs_visible_to(user).filter(pk=pk).first() if pk is not None else None
    if design is None:
        raise DesignNotFound(design_id)
    return design
