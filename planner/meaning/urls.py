"""What a design means for training (communication, failures, growth), included by planner.urls
(so inside its `planner` namespace)."""

from django.urls import path

from planner.meaning import views

urlpatterns = [
    path("<int:pk>/meaning/", views.design_meaning, name="design-meaning"),
]
