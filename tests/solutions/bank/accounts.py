"""Bank accounts. Amounts are integers in cents."""
from errors import InsufficientFunds


class Account:
    def __init__(self, owner, balance=0, overdraft_limit=0):
        self.owner = owner
        self.balance = balance
        self.overdraft_limit = overdraft_limit

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.balance += amount

    def withdraw(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        available = self.balance + self.overdraft_limit
        if amount > available:
            raise InsufficientFunds(self, amount - available)
        self.balance -= amount
