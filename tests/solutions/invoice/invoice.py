"""Invoices. See pricing.py for how money and taxes work here."""
from pricing import tax_cents


def line_total(item):
    """An item is {"unit_cents": int, "quantity": int}."""
    return item["unit_cents"] * item["quantity"]


def invoice_total(items, region):
    if any(item["quantity"] < 0 for item in items):
        raise ValueError("negative quantity")
    net = sum(line_total(item) for item in items)
    tax = tax_cents(net, region)
    return {"net": net, "tax": tax, "total": net + tax}
