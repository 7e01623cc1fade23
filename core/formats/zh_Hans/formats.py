"""Django's zh-Hans formats, with digits grouped in threes: Chinese business documents print
amounts as 1,009,664,000.00 (Django's default groups nothing, so intcomma printed 1009664000)."""

from django.conf.locale.zh_Hans.formats import *  # noqa: F403  (dates and input formats as is)

THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
