"""The design page's rack elevations section (`{% design_elevations design %}`): the page's view
is left as it is, and the section computes what it shows through the handover service."""

from typing import Any

from django import template

from planner.handover.services import design_page_elevations
from planner.models import Design

register = template.Library()


@register.inclusion_tag("planner/handover/_elevations.html")
def design_elevations(design: Design) -> dict[str, Any]:
    return design_page_elevations(design=design, lazy=True)
