"""The customer's proposal pages, outside the logged-in site: /s/<token>/.

Every page is throttled per client address (SHARE_THROTTLE_RATE): anyone may call them, and each
call with an unknown token is a guess. The token is redacted from the logs (core.log_filters)."""

from django.urls import path

from core.throttling import per_address
from quotes.views import documents as document_views
from quotes.views import pages as views

throttled = per_address("share", "SHARE_THROTTLE_RATE")

app_name = "share"
urlpatterns = [
    path("<str:token>/", throttled(views.proposal), name="proposal"),
    path("<str:token>/accept/", throttled(views.proposal_accept), name="accept"),
    path(
        "<str:token>/proposal.pdf",
        throttled(document_views.shared_document_download),
        name="document",
    ),
    path("<str:token>/decline/", throttled(views.proposal_decline), name="decline"),
]
