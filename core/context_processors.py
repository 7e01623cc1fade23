from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _

from core.selectors import approval_queue_count, user_roles, user_team

# Sections appear in the navigation once their app provides the page.
NAVIGATION = (
    ("designs", _("Designs"), "planner:design-list"),
    ("customers", _("Customers"), "customers:customer-list"),
    ("quotes", _("Quotes"), "quotes:quote-list"),
    ("catalog", _("Catalog"), "catalog:product-list"),
    ("api", _("API docs"), "api-docs"),
)


def _resolvable(url_name: str) -> str | None:
    try:
        return reverse(url_name)
    except NoReverseMatch:
        return None


def navigation(request: HttpRequest) -> dict[str, object]:
    if not request.user.is_authenticated:
        return {}
    items = []
    for key, label, url_name in NAVIGATION:
        url = _resolvable(url_name)
        if url:
            items.append({"key": key, "label": label, "url": url})
    return {
        "nav_items": items,
        "nav_team": user_team(request.user),
        "nav_roles": user_roles(request.user),
        "nav_approvals": lambda: approval_queue_count(request.user),  # counted when shown
    }
