from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.models import ApiToken, TokenScope
from core.services import api_token_create, api_token_revoke


class Command(BaseCommand):
    help = "Create, list or revoke API tokens. `create` prints the token as its last line, once."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="create a token for a user")
        create.add_argument("--user", required=True, help="username the token acts as")
        create.add_argument("--scope", required=True, choices=TokenScope.values)
        create.add_argument("--name", default="integration", help="what uses it, e.g. CRM")
        sub.add_parser("list", help="list tokens (never their secrets)")
        revoke = sub.add_parser("revoke", help="revoke a token by its prefix")
        revoke.add_argument("prefix")

    def handle(self, *args: object, action: str, **options: str) -> None:
        if action == "create":
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"No user named {options['user']!r}.")
            token, secret = api_token_create(
                user=user, name=options["name"], scope=options["scope"]
            )
            self.stderr.write(
                f"Created {token.scope} token {token.prefix} for {user.get_username()}; "
                "store it now, it is not shown again:"
            )
            self.stdout.write(secret)
        elif action == "list":
            for token in ApiToken.objects.select_related("user"):
                state = "revoked" if token.revoked_at else "active"
                used = token.last_used_at.isoformat() if token.last_used_at else "never used"
                self.stdout.write(
                    f"{token.prefix}  {token.user.get_username():<16} {token.scope:<10} "
                    f"{state:<8} {used}  {token.name}"
                )
        else:
            found = ApiToken.objects.filter(prefix=options["prefix"]).first()
            if found is None:
                raise CommandError(f"No token with prefix {options['prefix']!r}.")
            api_token_revoke(token=found)
            self.stdout.write(f"Revoked {found.prefix}.")
