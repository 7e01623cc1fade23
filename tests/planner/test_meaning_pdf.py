"""The proposal's "what the network means for training" part, read back from the PDF WeasyPrint
renders, in English and in Chinese: the reference job's step time, the failures to expect, the
spares and the chart of the design against its alternatives."""

import pytest
from django.utils import translation
from django.utils.translation import gettext

from planner.meaning import read_model as meaning
from planner.presenters import generic_name
from quotes.documents import document_render, document_request
from quotes.models import DocumentStatus
from tests.conftest import load_seed_catalog
from tests.quotes.test_documents import make_quote, pdf_text

pytestmark = pytest.mark.django_db


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_proposal_carries_the_chapter(engineer, language):
    load_seed_catalog()
    quote = make_quote(engineer)
    chapter = meaning.proposal_meaning(quote.design)
    assert chapter is not None
    found = chapter["meaning"]
    # 64 GPUs: the reference 70B job, tensor 8 in each server, data parallel 64 / 8 = 8.
    assert (chapter["job"]["parameters"], found.job.data_parallel) == (70 * 10**9, 8)
    # Compute: 6 x 70e9 x 4,194,304 tokens / (64 GPUs x 989e12 x 0.40) = 69.58 s.
    assert chapter["job"]["compute_seconds_per_step"] == pytest.approx(69.58, abs=0.01)
    document = document_request(user=engineer, revision=quote.current_revision, language=language)
    document = document_render(document_id=document.pk)
    assert document.status == DocumentStatus.READY, document.error
    _reader, text = pdf_text(document.file.read())
    flat = "".join(text.split())  # the PDF wraps Chinese text anywhere
    with translation.override(language):
        for heading in ("What the network means for training", "Failures to expect",
                        "Recommended spares"):  # fmt: skip
            assert "".join(gettext(heading).split()) in flat
    assert f"{found.estimate.seconds_per_step:.3f}" in text
    # Issue 28: NCCL's pick for each counted collective, and the what-if variants.
    for c in found.collectives:
        if c.counted:
            with translation.override(language):
                label = meaning.nccl_label(c.algorithm, c.protocol)
            assert "".join(label.split()) in flat
    with translation.override(language):
        assert "".join(gettext("What if (hypothetical variants)").split()) in flat
    assert len(found.what_if) > 1
    assert all(not row.is_design for row in found.what_if[1:])
    assert f"{found.failures.network_per_month:.2f}" in text
    for spare in found.failures.spares:
        # A spare without SKU (the inline 64x400 leaf) is named in the document's language.
        with translation.override(language):
            name = spare.sku or generic_name(spare.description)
        assert "".join(name.split()) in flat
