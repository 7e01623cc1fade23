"""Spares and growth steps into quotes, included by quotes.urls (inside its `quotes` namespace)."""

from django.urls import path

from quotes import meaning_views as views

urlpatterns = [
    path("<int:pk>/spares/", views.spares_add, name="meaning-spares"),
    path("<int:pk>/growth/", views.growth_revise, name="meaning-growth"),
]
