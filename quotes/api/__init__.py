"""Quotes, their documents, customers and opportunities over REST: views in `views.py` and
`documents.py`, routes in `urls.py`."""
