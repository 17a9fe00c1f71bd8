"""Hidden tests for the bank task: never shown to the agent."""
import pytest

import errors
from accounts import Account
from transfer import transfer


def test_overdraft_down_to_the_limit():
    a = Account("ann", 50, overdraft_limit=100)
    a.withdraw(150)
    assert a.balance == -100


def test_beyond_the_limit_raises_and_keeps_the_balance():
    a = Account("ann", 50, overdraft_limit=100)
    with pytest.raises(errors.InsufficientFunds) as info:
        a.withdraw(151)
    assert a.balance == 50
    assert info.value.account is a and info.value.shortfall == 1


def test_default_has_no_overdraft():
    a = Account("ann", 10)
    with pytest.raises(errors.InsufficientFunds) as info:
        a.withdraw(25)
    assert info.value.shortfall == 15 and a.balance == 10


def test_non_positive_amounts_still_value_errors():
    with pytest.raises(ValueError):
        Account("ann", 10, overdraft_limit=5).withdraw(0)


def test_transfer_is_atomic():
    a, b = Account("ann", 30), Account("bob", 5)
    with pytest.raises(errors.InsufficientFunds):
        transfer(a, b, 31)
    assert (a.balance, b.balance) == (30, 5)


def test_transfer_may_use_the_overdraft():
    a, b = Account("ann", 30, overdraft_limit=20), Account("bob", 0)
    transfer(a, b, 50)
    assert (a.balance, b.balance) == (-20, 50)
