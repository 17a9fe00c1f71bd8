"""Hidden tests: never shown to the agent; copied in after it stops."""
from stats import median, moving_average


def test_median_single():
    assert median([7]) == 7


def test_median_even_unsorted_with_negatives():
    assert median([10, -2, 4, 8]) == 6


def test_median_two_items():
    assert median([1, 2]) == 1.5


def test_median_does_not_change_its_input():
    xs = [3, 1, 2]
    median(xs)
    assert xs == [3, 1, 2]


def test_moving_average_window_equals_length():
    assert moving_average([2, 4, 6], 3) == [4]


def test_moving_average_last_window_included():
    assert moving_average([1, 2, 3, 4, 5], 3) == [2, 3, 4]
