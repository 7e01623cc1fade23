"""What the server (gunicorn) accepts of a request before the application reads it. One place
for gunicorn.conf.py, the problems its worker writes (config.gunicorn_worker) and the API schema
(core.schema), so the documented limits are the enforced ones. These are gunicorn's defaults:
a CRM's filters fit in a tenth of them."""

REQUEST_LINE_MAX_BYTES = 4094
HEADER_FIELD_MAX_BYTES = 8190
HEADER_FIELDS_MAX = 100
