import re
from io import StringIO

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.test import RequestFactory

pytestmark = pytest.mark.django_db


def test_demo_user_password_is_printed_once_and_works(roles):
    out = StringIO()
    call_command("create_demo_user", stdout=out)
    match = re.search(r"user 'demo' password '([^']+)'", out.getvalue())
    assert match, out.getvalue()
    user = authenticate(RequestFactory().post("/"), username="demo", password=match.group(1))
    assert user is not None
    assert user.groups.filter(name="sales-engineer").exists()

    again = StringIO()
    call_command("create_demo_user", stdout=again)
    assert match.group(1) not in again.getvalue()
    assert get_user_model().objects.filter(username="demo").count() == 1


def test_demo_users_have_the_name_and_email_a_customer_sees(roles):
    """Proposals and share pages name the sales engineer with an email to write to."""
    call_command("create_demo_user", stdout=StringIO())
    users = get_user_model().objects
    for username in ("demo", "demo-manager"):
        user = users.get(username=username)
        assert user.get_full_name() not in ("", username)
        assert "@" in user.email
    # A demo user made before users had names gets them on the next run; a name someone
    # changed since is kept.
    users.filter(username="demo").update(first_name="", email="")
    users.filter(username="demo-manager").update(first_name="Wang Fang")
    call_command("create_demo_user", stdout=StringIO())
    assert users.get(username="demo").email.endswith("@ezmax.example")
    assert users.get(username="demo-manager").first_name == "Wang Fang"


def test_setup_roles_lists_each_group():
    out = StringIO()
    call_command("setup_roles", stdout=out)
    call_command("setup_roles", stdout=out)
    for name in ("sales-engineer", "sales-manager", "catalog-manager", "administrator"):
        assert name in out.getvalue()
