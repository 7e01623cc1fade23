import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from core.roles import SALES_ENGINEER, SALES_MANAGER
from core.services import user_create

DEMO_TEAM = "Demo team"
# Proposals and share pages name the sales engineer with email (quotes.services.creation): a
# demo user with only a username would show customers "demo" and no way to write back.
DEMO_USERS = (
    ("demo", SALES_ENGINEER, "Demo Engineer", "demo.engineer@ezmax.example"),
    ("demo-manager", SALES_MANAGER, "Demo Manager", "demo.manager@ezmax.example"),
)


class Command(BaseCommand):
    help = (
        "Create the demo sales engineer (and a demo sales manager) once; the generated passwords "
        "are printed only when the users are created."
    )

    def handle(self, *args: object, **options: object) -> None:
        user_model = get_user_model()
        for username, role, name, email in DEMO_USERS:
            if user_model.objects.filter(username=username).exists():
                # Users created before they had names get them; names changed since are kept.
                user_model.objects.filter(username=username, email="").update(email=email)
                user_model.objects.filter(username=username, first_name="").update(first_name=name)
                self.stdout.write(
                    f"User {username!r} exists (its password was printed when it was created; "
                    f"reset it with `manage.py changepassword {username}`)."
                )
                continue
            password = secrets.token_urlsafe(12)
            user_create(
                username=username,
                password=password,
                role=role,
                team_name=DEMO_TEAM,
                email=email,
                first_name=name,
            )
            self.stdout.write(
                self.style.SUCCESS(f"Created {role.label}: user {username!r} password {password!r}")
            )
