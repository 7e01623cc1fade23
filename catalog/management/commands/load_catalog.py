from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from catalog.selectors import catalog_problems
from catalog.services import SEED_PATH, CatalogDataError, catalog_load_file


class Command(BaseCommand):
    help = (
        "Load the catalog seed (products, specs, media rules, price lists) idempotently: "
        "upsert by SKU in one transaction; any error loads nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", nargs="?", default=str(SEED_PATH), help="seed JSON file")
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help="validate every row and report what would change, saving nothing",
        )

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["path"]))
        dry_run = bool(options["dry_run"])
        try:
            result = catalog_load_file(path, dry_run=dry_run)
        except CatalogDataError as exc:
            for error in exc.errors:
                self.stderr.write(error)
            raise CommandError(
                f"{len(exc.errors)} error(s) in {path}; nothing was loaded."
            ) from exc
        for line in result.lines():
            self.stdout.write(line)
        if dry_run:
            self.stdout.write(self.style.SUCCESS(f"Dry run of {path.name}: nothing was saved."))
            return
        problems = catalog_problems()
        for problem in problems:
            self.stderr.write(f"warning: {problem}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Catalog loaded from {path.name}" + ("" if result.changed else " (no changes)")
            )
        )
