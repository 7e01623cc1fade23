"""Exports of a saved design: the files (BOM CSV/XLSX, cabling, request) and the export jobs a
worker runs for large ones (models, jobs, views, urls)."""
