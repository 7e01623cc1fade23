app_name = "catalog"
urlpatterns: list[object] = []
