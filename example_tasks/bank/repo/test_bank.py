import pytest

from accounts import Account
from transfer import transfer


def test_deposit_and_withdraw():
    a = Account("ann", 100)
    a.deposit(50)
    a.withdraw(30)
    assert a.balance == 120


def test_non_positive_amounts_are_refused():
    a = Account("ann", 100)
    with pytest.raises(ValueError):
        a.deposit(0)
    with pytest.raises(ValueError):
        a.withdraw(-5)


def test_transfer_moves_money():
    a, b = Account("ann", 100), Account("bob", 0)
    transfer(a, b, 40)
    assert (a.balance, b.balance) == (60, 40)
