"""The customer's proposal pages, outside the logged-in site: /s/<token>/."""

from django.urls import path

from quotes import views

app_name = "share"
urlpatterns = [
    path("<str:token>/", views.proposal, name="proposal"),
    path("<str:token>/accept/", views.proposal_accept, name="accept"),
    path("<str:token>/decline/", views.proposal_decline, name="decline"),
]
