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

    def handle(self, *args: object, **options: object) -> None:
        path = Path(str(options["path"]))
        try:
            result = catalog_load_file(path)
        except CatalogDataError as exc:
            for error in exc.errors:
                self.stderr.write(error)
            raise CommandError(
                f"{len(exc.errors)} error(s) in {path}; nothing was loaded."
            ) from exc
        for line in result.lines():
            self.stdout.write(line)
        problems = catalog_problems()
        for problem in problems:
            self.stderr.write(f"warning: {problem}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Catalog loaded from {path.name}" + ("" if result.changed else " (no changes)")
            )
        )
