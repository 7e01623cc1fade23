"""Settings for `make run` on a workstation: debug on, everything else from the environment."""

from .base import *  # noqa: F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)

# Serve static files straight from the source folders; no collectstatic needed.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
