from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Users, teams and background jobs")

    def ready(self) -> None:
        from core import schema  # noqa: F401  (registers the OpenAPI extensions)
        from core.log_filters import install_on_gunicorn_loggers

        # gunicorn's access log (request line, referer) must not show share-link tokens either.
        install_on_gunicorn_loggers()
