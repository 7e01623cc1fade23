"""`{% quote_pipeline user %}`: the pipeline section of the home dashboard (quotes.pipeline),
for the page of a lower layer (core's home) that may not import quotes."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth.models import AnonymousUser, User

from quotes.pipeline import pipeline_by_status

register = template.Library()


@register.inclusion_tag("quotes/_pipeline.html")
def quote_pipeline(user: User | AnonymousUser) -> dict[str, Any]:
    return {"pipeline": pipeline_by_status(user)}
