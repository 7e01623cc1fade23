"""The customer's proposal pages, outside the logged-in site: /s/<token>/."""

from django.urls import path

from quotes import document_views, views

app_name = "share"
urlpatterns = [
    path("<str:token>/", views.proposal, name="proposal"),
    path("<str:token>/accept/", views.proposal_accept, name="accept"),
    path("<str:token>/proposal.pdf", document_views.shared_document_download, name="document"),
    path("<str:token>/decline/", views.proposal_decline, name="decline"),
]
