"""Moving money between accounts."""


def transfer(source, target, amount):
    source.withdraw(amount)
    target.deposit(amount)
