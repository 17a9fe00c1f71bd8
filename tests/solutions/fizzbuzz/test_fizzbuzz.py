from fizzbuzz import fizzbuzz


def test_cases():
    assert [fizzbuzz(n) for n in (3, 5, 15, 7)] == ["Fizz", "Buzz", "FizzBuzz", "7"]
