"""Catalog REST endpoints (filled by the catalog work)."""
