"""What a quote's documents print of its customer, frozen with the revision (issue 27, item 7).

A customer's record changes (a new address, a new billing contact); a revision sent or approved
must not: the proposal the customer accepts is the one the manager approved, cover included. So
a draft revision takes the customer's details each time it is priced, and they freeze with it
when it is submitted (quotes.services.prices). These are plain JSON, read back by
`CustomerDetails` for the templates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from customers.models import Customer, reader_names


def customer_details(customer: Customer) -> dict[str, Any]:
    """The customer's details as a document prints them, as JSON."""
    billing = customer.billing_contact
    return {
        "name_en": customer.name_en,
        "name_zh": customer.name_zh,
        "address": customer.address,
        "tax_id": customer.tax_id,
        "billing_contact": (
            {"name": billing.name, "email": billing.email, "phone": billing.phone}
            if billing is not None
            else None
        ),
    }


@dataclass(frozen=True)
class BillingContact:
    name: str
    email: str
    phone: str


@dataclass(frozen=True)
class CustomerDetails:
    """Frozen details, shown as `Customer` shows itself: the name in the reader's language."""

    name_en: str
    name_zh: str
    address: str
    tax_id: str
    billing_contact: BillingContact | None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CustomerDetails:
        billing = data.get("billing_contact")
        return cls(
            name_en=str(data.get("name_en", "")),
            name_zh=str(data.get("name_zh", "")),
            address=str(data.get("address", "")),
            tax_id=str(data.get("tax_id", "")),
            billing_contact=(
                BillingContact(
                    name=str(billing.get("name", "")),
                    email=str(billing.get("email", "")),
                    phone=str(billing.get("phone", "")),
                )
                if isinstance(billing, dict)
                else None
            ),
        )

    def __str__(self) -> str:
        return reader_names(self.name_en, self.name_zh)[0]
