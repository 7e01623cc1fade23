import os

from django.core.wsgi import get_wsgi_application

from config.tracing import tracing_start

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# Before the application loads its middleware: tracing adds its own (only when switched on).
tracing_start("web")
application = get_wsgi_application()
