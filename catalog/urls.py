from django.urls import path

from catalog import views

app_name = "catalog"
urlpatterns = [
    path("", views.ProductListView.as_view(), name="product-list"),
    path("products/<str:sku>/", views.ProductDetailView.as_view(), name="product-detail"),
]
