"""`manage.py restore ARCHIVE`: put a `manage.py backup` archive back into an empty system.

Refused unless both are empty: the database (no table at all: create it, do not migrate it) and
the document store (no file), so a restore never mixes with rows or files already there. The
database is restored in one transaction (pg_restore --single-transaction: all or nothing), then
every file is written back through the storage API and read back against the SHA-256 the
manifest recorded when it was backed up."""

from __future__ import annotations

import json
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from django.core.files import File
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.utils.translation import gettext as _

from core.management.commands.backup import (
    DATABASE,
    FORMAT,
    MANIFEST,
    MEDIA,
    file_sha256,
    pg_tool,
    postgres_env,
    stored_files,
)


def _safe(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and not path.is_absolute() and ".." not in path.parts


class Command(BaseCommand):
    help = "Restore a `backup` archive into an empty database and an empty document store."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", help="a tar file written by `manage.py backup`")

    def handle(self, *args: Any, **options: Any) -> None:
        source = Path(options["archive"])
        conninfo, env = postgres_env()
        if connection.introspection.table_names():
            raise CommandError(
                _("The database %(name)s is not empty: restore into a new, empty database.")
                % {"name": connection.settings_dict["NAME"]}
            )
        storage = default_storage
        if next(stored_files(storage), None) is not None:
            raise CommandError(_("The document store is not empty: restore into an empty one."))
        connection.close()  # pg_restore works alone; Django reconnects when asked again
        with tarfile.open(source, "r") as archive, tempfile.TemporaryDirectory() as work:
            manifest = json.load(self._member(archive, MANIFEST))
            if manifest.get("format") != FORMAT:
                raise CommandError(_("This archive's format is not one this version restores."))
            dump = Path(work) / DATABASE
            dump.write_bytes(self._member(archive, DATABASE).read())
            done = subprocess.run(
                [pg_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
                 "--single-transaction", *conninfo, str(dump)],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise CommandError(
                    _("pg_restore failed: %(error)s") % {"error": done.stderr.strip()}
                )
            for entry in manifest["files"]:
                name = str(entry["name"])
                if not _safe(name):
                    raise CommandError(_("Refused a file named %(name)s.") % {"name": name})
                saved = storage.save(name, File(self._member(archive, MEDIA + name)))
                if saved != name or file_sha256(storage, name) != entry["sha256"]:
                    raise CommandError(
                        _("%(name)s did not read back as it was backed up.") % {"name": name}
                    )
        self.stdout.write(
            _("Restored the database and %(count)s stored files, each checked against its SHA-256.")
            % {"count": len(manifest["files"])}
        )

    @staticmethod
    def _member(archive: tarfile.TarFile, name: str) -> Any:
        try:
            member = archive.extractfile(name)
        except KeyError:
            member = None
        if member is None:
            raise CommandError(_("The archive has no %(name)s.") % {"name": name})
        return member
