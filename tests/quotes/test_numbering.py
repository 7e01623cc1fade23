"""Quote numbers: Q-<year>-<5 digits>, gapless per year, never duplicated under concurrency."""

import threading

import pytest
from django.db import connection
from django.utils import timezone

from quotes import services
from quotes.models import Quote, QuoteNumberCounter
from quotes.services import creation


@pytest.mark.django_db
def test_numbers_are_consecutive_per_year(catalog, engineer, design, customer):
    year = timezone.localdate().year
    numbers = [
        services.quote_create(user=engineer, design=design, customer=customer).number
        for _ in range(3)
    ]
    assert numbers == [f"Q-{year}-00001", f"Q-{year}-00002", f"Q-{year}-00003"]
    assert QuoteNumberCounter.objects.get(year=year).last_number == 3


@pytest.mark.django_db
def test_a_failed_creation_gives_its_number_back(catalog, engineer, design, customer, monkeypatch):
    year = timezone.localdate().year
    services.quote_create(user=engineer, design=design, customer=customer)

    def broken(revision):
        raise RuntimeError("pricing failed after the number was taken")

    with monkeypatch.context() as patch:
        patch.setattr(creation, "_reprice", broken)  # the creation module prices the lines
        with pytest.raises(RuntimeError):
            services.quote_create(user=engineer, design=design, customer=customer)
    # The failed creation rolled back with its number: the next quote is 2, not 3.
    assert services.quote_create(user=engineer, design=design, customer=customer).number == (
        f"Q-{year}-00002"
    )


def test_revision_label():
    from quotes.models import revision_label

    assert revision_label("Q-2026-00042", 0) == "Q-2026-00042"
    assert revision_label("Q-2026-00042", 2) == "Q-2026-00042-R2"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_creations_get_twenty_consecutive_numbers(
    postgres_required, catalog, engineer, design, customer
):
    threads_count = 20
    barrier = threading.Barrier(threads_count)
    numbers: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def create() -> None:
        try:
            barrier.wait(timeout=30)  # start together, each on its own connection
            quote = services.quote_create(user=engineer, design=design, customer=customer)
            with lock:
                numbers.append(quote.number)
        except BaseException as exc:  # reported below
            with lock:
                errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=create) for _ in range(threads_count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    year = timezone.localdate().year
    # 20 distinct numbers, exactly 1..20: none lost, none repeated.
    assert sorted(numbers) == [f"Q-{year}-{n:05d}" for n in range(1, threads_count + 1)]
    assert Quote.objects.count() == threads_count
