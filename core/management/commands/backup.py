"""`manage.py backup ARCHIVE`: the PostgreSQL database and the document store in one tar file,
which `manage.py restore ARCHIVE` puts back into an empty system.

The archive holds `manifest.json` (format, when, and every stored file's name, size and SHA-256),
`database.dump` (pg_dump's custom format: schema, rows and sequence positions, so quote numbers
and ids continue where they were) and `media/<name>` for every file of the default storage
(MEDIA_ROOT, or the S3 bucket: read through Django's storage API either way).

The database is dumped first, then the files are copied: every file a dumped row names was
written before its row committed (quotes.documents stores the bytes, then the row), so it is in
the archive. A file written during the copy that no dumped row names is an orphan after a
restore, which the retention sweep deletes (core.retention)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.storage import Storage, default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext as _

FORMAT = 1
MANIFEST = "manifest.json"
DATABASE = "database.dump"
MEDIA = "media/"
CHUNK = 1024 * 1024


def postgres_env() -> tuple[list[str], dict[str, str]]:
    """pg_dump's and pg_restore's connection arguments for the default database; the password
    goes in the environment, never on a command line others can read."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        raise CommandError(_("Backups are of PostgreSQL databases only (DATABASE_URL)."))
    args = ["--host", str(db.get("HOST") or "127.0.0.1"), "--port", str(db.get("PORT") or 5432)]
    if db.get("USER"):
        args += ["--username", str(db["USER"])]
    env = dict(os.environ)
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    return [*args, "--dbname", str(db["NAME"])], env


def pg_tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise CommandError(
            _("%(tool)s is not installed (PostgreSQL's client tools).") % {"tool": name}
        )
    return found


def stored_files(storage: Storage, folder: str = "") -> Iterator[str]:
    """Every file of the storage, by the name it is stored under."""
    try:
        directories, files = storage.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    prefix = f"{folder}/" if folder else ""
    for name in sorted(files):
        yield f"{prefix}{name}"
    for directory in sorted(directories):
        yield from stored_files(storage, f"{prefix}{directory}")


def file_sha256(storage: Storage, name: str) -> str:
    digest = hashlib.sha256()
    with storage.open(name, "rb") as stored:
        while chunk := stored.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _add_bytes(archive: tarfile.TarFile, name: str, content: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(content)
    info.mtime = int(timezone.now().timestamp())
    archive.addfile(info, io.BytesIO(content))


class Command(BaseCommand):
    help = "Write the database and every stored document to one archive (restore: `restore`)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("archive", help="the tar file to write (refused if it exists)")

    def handle(self, *args: Any, **options: Any) -> None:
        target = Path(options["archive"])
        if target.exists():
            raise CommandError(_("%(path)s exists already.") % {"path": target})
        conninfo, env = postgres_env()
        storage = default_storage
        with tempfile.TemporaryDirectory(prefix="ezmax-backup-") as work:
            dump = Path(work) / DATABASE
            done = subprocess.run(
                [pg_tool("pg_dump"), "--format=custom", "--no-owner", "--no-privileges",
                 "--file", str(dump), *conninfo],
                env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode != 0:
                raise CommandError(_("pg_dump failed: %(error)s") % {"error": done.stderr.strip()})
            files: list[dict[str, object]] = []
            partial = target.with_name(target.name + ".partial")
            with tarfile.open(partial, "w") as archive:
                archive.add(dump, arcname=DATABASE)
                for name in stored_files(storage):
                    size = storage.size(name)
                    info = tarfile.TarInfo(MEDIA + name)
                    info.size = size
                    info.mtime = int(storage.get_modified_time(name).timestamp())
                    with storage.open(name, "rb") as stored:
                        archive.addfile(info, stored)
                    files.append({"name": name, "size": size, "sha256": file_sha256(storage, name)})
                manifest = {
                    "format": FORMAT,
                    "created_at": timezone.now().isoformat(),
                    "database": connection.vendor,
                    "media_root": str(settings.MEDIA_ROOT),
                    "files": files,
                }
                _add_bytes(archive, MANIFEST, json.dumps(manifest, indent=1).encode())
            partial.rename(target)  # never a half-written archive under the final name
        self.stdout.write(
            _("Backed up the database and %(count)s stored files to %(path)s.")
            % {"count": len(files), "path": target}
        )
