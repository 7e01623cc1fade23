from django.urls import path, re_path

from quotes.views import documents as document_views
from quotes.views import pages as views
from quotes.views import spares_growth

app_name = "quotes"
urlpatterns = [
    path("", views.quote_list, name="quote-list"),
    path("new/", views.quote_create, name="quote-create"),
    path("<int:pk>/", views.quote_detail, name="quote-detail"),
    path(
        "<int:pk>/r<int:number>/documents/",
        document_views.document_create,
        name="document-create",
    ),
    path("documents/<int:pk>/", document_views.document_status, name="document-status"),
    path(
        "documents/<int:pk>/download/",
        document_views.document_download,
        name="document-download",
    ),
    path("<int:pk>/revise/", views.quote_revise, name="quote-revise"),
    path("<int:pk>/r<int:number>/discount/", views.revision_discount, name="revision-discount"),
    path("<int:pk>/r<int:number>/terms/", views.terms_update, name="revision-terms"),
    path("<int:pk>/r<int:number>/lines/add/", views.line_add, name="line-add"),
    path("<int:pk>/r<int:number>/lines/", views.revision_lines, name="revision-lines"),
    path("<int:pk>/r<int:number>/freight/", views.freight_update, name="revision-freight"),
    path("<int:pk>/r<int:number>/quote.xlsx", views.quote_xlsx, name="revision-xlsx"),
    re_path(
        r"^(?P<pk>\d+)/(?P<action>archive|restore|delete)/$",
        views.quote_archive,
        name="quote-archive",
    ),
    path("<int:pk>/r<int:number>/links/new/", views.share_link_create, name="share-link-create"),
    re_path(
        r"^(?P<pk>\d+)/r(?P<number>\d+)/(?P<action>submit|approve|reject|send|withdraw)/$",
        views.revision_action,
        name="revision-action",
    ),
    path("<int:pk>/lines/<int:line_id>/", views.line_update, name="line-update"),
    path("<int:pk>/lines/<int:line_id>/delete/", views.line_delete, name="line-delete"),
    path("<int:pk>/links/<int:link_id>/revoke/", views.share_link_revoke, name="share-link-revoke"),
    # The design's spares and growth steps, into the quote (the design page's buttons too).
    path("<int:pk>/spares/", spares_growth.spares_add, name="meaning-spares"),
    path("<int:pk>/growth/", spares_growth.growth_revise, name="meaning-growth"),
]
