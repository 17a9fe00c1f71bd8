from invoice import invoice_total, line_total


def test_line_total():
    assert line_total({"unit_cents": 250, "quantity": 4}) == 1000


def test_invoice_total_germany():
    items = [{"unit_cents": 1000, "quantity": 2}]
    assert invoice_total(items, "DE") == {"net": 2000, "tax": 380, "total": 2380}
