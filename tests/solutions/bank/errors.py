class InsufficientFunds(Exception):
    def __init__(self, account, shortfall):
        super().__init__(f"{account.owner} is short by {shortfall} cents")
        self.account = account
        self.shortfall = shortfall
