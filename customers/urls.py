from django.urls import path

from customers import views

app_name = "customers"
urlpatterns = [
    path("", views.customer_list, name="customer-list"),
    path("new/", views.customer_create, name="customer-create"),
    path("<int:pk>/", views.customer_detail, name="customer-detail"),
    path("<int:pk>/edit/", views.customer_edit, name="customer-edit"),
    path("<int:pk>/contacts/new/", views.contact_create, name="contact-create"),
    path("contacts/<int:pk>/edit/", views.contact_edit, name="contact-edit"),
]
