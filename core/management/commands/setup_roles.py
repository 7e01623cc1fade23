from django.core.management.base import BaseCommand, CommandError

from core.services import UnknownPermission, roles_apply


class Command(BaseCommand):
    help = (
        "Create or update the role groups (sales engineer, sales manager, catalog manager, admin)."
    )

    def handle(self, *args: object, **options: object) -> None:
        try:
            groups = roles_apply()
        except UnknownPermission as exc:
            raise CommandError(str(exc)) from exc
        for group in groups:
            self.stdout.write(f"{group.name}: {group.permissions.count()} permissions")
