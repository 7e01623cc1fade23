FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# postgresql-client: pg_dump and pg_restore for `manage.py backup` and `restore`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends fonts-noto-cjk libpango-1.0-0 libpangoft2-1.0-0 \
    libharfbuzz0b gettext postgresql-client \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The production lock: the application's dependencies only, no test or lint tools (those are in
# requirements-dev.lock, which `make install` uses).
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN DJANGO_SETTINGS_MODULE=config.settings.local python manage.py collectstatic --noinput \
 && useradd --system --uid 10001 --home /app app && mkdir -p /app/var /app/media && chown -R app /app/var /app/media
USER app
EXPOSE 8000
# Workers, worker class and logging: gunicorn.conf.py.
CMD ["gunicorn", "config.wsgi:application"]
