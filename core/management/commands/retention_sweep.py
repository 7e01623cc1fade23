from django.core.management.base import BaseCommand

from core.retention import retention_sweep


class Command(BaseCommand):
    help = (
        "Delete webhook deliveries past WEBHOOK_DELIVERY_RETENTION_DAYS and stored files no row "
        "names (older than ORPHAN_FILE_GRACE_HOURS). Safe to run at any time, and again."
    )

    def handle(self, *args: object, **options: object) -> None:
        deleted = retention_sweep()
        self.stdout.write(
            f"Deleted {deleted['webhook_deliveries']} webhook deliveries and "
            f"{deleted['orphan_files']} stored files no row names."
        )
