"""The vocabulary (`core.vocabulary`) as template filters:
`{% load labels %}{{ group.tier|tier_label }}`."""

from django import template

from core import vocabulary

register = template.Library()

register.filter("role_label", vocabulary.role_label)
register.filter("tier_label", vocabulary.tier_label)
register.filter("phase_label", vocabulary.phase_label)
register.filter("deliverable_label", vocabulary.deliverable_label)
register.filter("fabric_label", vocabulary.fabric_label)
register.filter("plane_label", vocabulary.plane_label)
register.filter("media_label", vocabulary.media_label)
register.filter("media_policy_label", vocabulary.media_policy_label)
register.filter("status_label", vocabulary.status_label)
register.filter("alternative_labels", vocabulary.alternative_labels)
register.filter("group_label", vocabulary.group_label)
register.filter("policy_label", vocabulary.policy_label)
register.filter("group_labels", vocabulary.group_labels)
register.filter("field_label", vocabulary.field_label)
register.filter("request_field_label", vocabulary.request_field_label)
register.filter("change_summary", vocabulary.change_summary)
register.filter("glossary_term", vocabulary.glossary_term)
