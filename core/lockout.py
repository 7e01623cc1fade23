"""Login lockout (django-axes) per client address as well as per user.

Axes counts failed logins per parameter set in AXES_LOCKOUT_PARAMETERS and compares the largest
count with one limit. Two sets are counted here:

- the username from this address (AXES_FAILURE_LIMIT, 5): someone guessing one user's password;
- the address alone, whatever the usernames (LOGIN_IP_FAILURE_LIMIT, 20): password spraying, one
  or two guesses per username, which the first count never sees.

The address count is scaled so that it reaches the one limit axes compares with after
LOGIN_IP_FAILURE_LIMIT failures, and a successful login clears only its own username's count: a
sprayer who knows one valid password cannot wipe the address's count by logging in with it.
Counts expire AXES_COOLOFF_TIME after the last failure.

The address is the connection's (`client_ip`), never a client-sent header unless
NUM_PROXIES trusted proxies put it there."""

from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.db.models import QuerySet, Sum
from django.http import HttpRequest

USER_AT_ADDRESS = ["username", "ip_address"]
ADDRESS = "ip_address"
LOCKOUT_PARAMETERS: list[str | list[str]] = [USER_AT_ADDRESS, ADDRESS]


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: the connection's, or, behind NUM_PROXIES trusted reverse proxies,
    the address the outermost of them saw (the NUM_PROXIES-th entry of X-Forwarded-For from the
    right). Entries further left were written by the client and are ignored."""
    proxies = int(settings.NUM_PROXIES)
    if proxies > 0:
        header: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
        forwarded = [part.strip() for part in header.split(",") if part.strip()]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    remote: str | None = request.META.get("REMOTE_ADDR") or None
    return remote


def _failures(attempts: QuerySet[Any]) -> int:
    total: int | None = attempts.aggregate(total=Sum("failures_since_start"))["total"]
    return total or 0


class LoginLockoutHandler(AxesDatabaseHandler):  # type: ignore[misc]
    def _counts(
        self, request: HttpRequest, credentials: dict[str, Any] | None
    ) -> dict[str, QuerySet[Any]]:
        attempts = self.get_user_attempts(request, credentials)
        return {
            "user": attempts[LOCKOUT_PARAMETERS.index(USER_AT_ADDRESS)],
            "address": attempts[LOCKOUT_PARAMETERS.index(ADDRESS)],
        }

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        counts = self._counts(request, credentials)
        user_limit = int(settings.AXES_FAILURE_LIMIT)
        address_limit = max(1, int(settings.LOGIN_IP_FAILURE_LIMIT))
        # In the user limit's units: the address reaches it after address_limit failures.
        address = _failures(counts["address"]) * user_limit // address_limit
        return max(_failures(counts["user"]), address)

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> int:
        """On a successful login: this username's failures from this address only."""
        attempts = self.filter_user_attempts(request, credentials)
        deleted, _ = attempts[LOCKOUT_PARAMETERS.index(USER_AT_ADDRESS)].delete()
        return int(deleted)
