from rest_framework.pagination import CursorPagination


class ApiCursorPagination(CursorPagination):
    page_size = 25
    page_size_query_param = "limit"
    max_page_size = 100
    ordering = "-pk"
