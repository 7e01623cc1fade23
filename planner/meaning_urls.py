"""What a design means for training (communication, failures, growth), included by planner.urls
(so inside its `planner` namespace)."""

from django.urls import path

from planner import meaning_views as views

urlpatterns = [
    path("<int:pk>/meaning/", views.design_meaning, name="design-meaning"),
]
