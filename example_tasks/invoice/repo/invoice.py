"""Invoices. See pricing.py for how money and taxes work here."""


def line_total(item):
    """An item is {"unit_cents": int, "quantity": int}."""
    return item["unit_cents"] * item["quantity"]


def invoice_total(items, region):
    raise NotImplementedError
