"""Hidden tests for the invoice task: never shown to the agent."""
import pytest

import pricing
from invoice import invoice_total


def test_tax_is_rounded_half_up_on_the_net_sum():
    # two lines of 75 cents: 150 * 19 % = 28.5 -> 29 (per-line rounding gives 28, round() gives 28)
    items = [{"unit_cents": 75, "quantity": 1}, {"unit_cents": 75, "quantity": 1}]
    assert invoice_total(items, "DE") == {"net": 150, "tax": 29, "total": 179}


def test_basis_point_rate():
    assert invoice_total([{"unit_cents": 10_000, "quantity": 1}], "US-NY") == {"net": 10_000, "tax": 888, "total": 10_888}


def test_unknown_region_raises_pricing_error():
    with pytest.raises(pricing.UnknownRegion):
        invoice_total([{"unit_cents": 100, "quantity": 1}], "XX")


def test_zero_quantity_and_empty():
    assert invoice_total([{"unit_cents": 999, "quantity": 0}], "FR") == {"net": 0, "tax": 0, "total": 0}
    assert invoice_total([], "FR") == {"net": 0, "tax": 0, "total": 0}


def test_negative_quantity_is_refused():
    with pytest.raises(ValueError):
        invoice_total([{"unit_cents": 100, "quantity": -1}], "JP")
