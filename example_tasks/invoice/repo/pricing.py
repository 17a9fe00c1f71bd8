"""Money and taxes. Every amount is an integer number of cents; never use floats for money.

Tax rates are in basis points (1 bp = 0.01 %). Rounding is half up (0.5 cent rounds up), which is
what our accountants require; Python's round() rounds half to even and must not be used for money.
"""

TAX_RATES_BP = {"DE": 1900, "FR": 2000, "UK": 2000, "JP": 1000, "US-NY": 888}


class UnknownRegion(KeyError):
    """A region without a tax rate."""


def tax_rate_bp(region):
    try:
        return TAX_RATES_BP[region]
    except KeyError:
        raise UnknownRegion(region) from None


def round_half_up(numerator, denominator):
    """numerator / denominator rounded half up, for non-negative integers."""
    return (2 * numerator + denominator) // (2 * denominator)


def tax_cents(net_cents, region):
    """The tax on a net amount: net * rate, rounded half up to a whole cent."""
    return round_half_up(net_cents * tax_rate_bp(region), 10_000)
