"""The catalog over REST: views in `views.py`, routes in `urls.py`."""
