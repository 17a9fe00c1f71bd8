"""Hidden tests for fizzbuzz.txt: never shown to the agent."""
import pytest

from fizzbuzz import fizzbuzz


@pytest.mark.parametrize("n,expected", [(3, "Fizz"), (6, "Fizz"), (5, "Buzz"), (20, "Buzz"),
                                        (15, "FizzBuzz"), (45, "FizzBuzz"), (1, "1"), (7, "7"), (98, "98")])
def test_fizzbuzz(n, expected):
    assert fizzbuzz(n) == expected
