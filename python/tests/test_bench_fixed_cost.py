"""bench/fixed_cost.py: the line through a kernel's times over M (no GPU)."""

import pytest

from repo_scripts import load_script

fixed_cost = load_script("fixed_cost", "bench/fixed_cost.py")


def test_fit_recovers_fixed_cost_and_slope():
    # 7 us that do not grow with M, 6 ns a row.
    points = [(m, 7.0 + 0.006 * m) for m in (528, 4224, 16896, 33792)]
    fixed, slope = fixed_cost.fit(points)
    assert fixed == pytest.approx(7.0)
    assert slope == pytest.approx(0.006)


def test_fit_is_least_squares():
    # Symmetric noise around the line leaves it where it was.
    points = [(0, 1.0), (10, 2.2), (20, 2.8), (30, 4.0)]
    fixed, slope = fixed_cost.fit(points)
    assert slope == pytest.approx(0.096)
    assert fixed == pytest.approx(1.06)


def test_fit_of_one_m_has_no_slope():
    assert fixed_cost.fit([(4096, 3.0), (4096, 5.0)]) == (4.0, 0.0)
