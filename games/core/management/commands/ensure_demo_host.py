from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

DEMO_USERNAME = "host"


class Command(BaseCommand):
    help = "Create the demo host account (a staff user) once, and print its password."

    def handle(self, *args: object, **options: object) -> None:
        users = get_user_model()
        if users.objects.filter(username=DEMO_USERNAME).exists():
            self.stdout.write(
                f"Demo host account: '{DEMO_USERNAME}' (password printed when it was created; "
                f"reset it with: .venv/bin/python manage.py changepassword {DEMO_USERNAME})"
            )
            return
        password = secrets.token_urlsafe(9)
        users.objects.create_superuser(
            username=DEMO_USERNAME, password=password, email="", first_name="Host"
        )
        self.stdout.write("=" * 60)
        self.stdout.write(f"Demo host account created: username '{DEMO_USERNAME}'")
        self.stdout.write(f"                           password '{password}'")
        self.stdout.write("Log in at http://127.0.0.1:8000/accounts/login/ ; dashboard at /admin/")
        self.stdout.write("=" * 60)
