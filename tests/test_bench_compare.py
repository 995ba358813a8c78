"""The bench's side-by-side turns (bench/compare.py): interleaved, each side's median, and a
time against Pi's as the median of the rounds' ratios.

Not a timing test: the runs here are made up; what is checked is how turns are taken and
which run counts, the same way for Pi and for us.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import compare  # noqa: E402   (bench/compare.py)


def _side(name: str, times: list[float], order: list[str]):
    runs = iter(times)

    def run():
        order.append(name)
        cpu = next(runs)
        return compare.Run(cpu, 100 + cpu, {"side": name, "cpu": cpu})
    return run


def test_turns_are_interleaved_round_by_round():
    order: list[str] = []
    compare.interleaved({"ours": _side("ours", [1, 2, 3], order),
                         "Pi": _side("Pi", [1, 2, 3], order)}, 3)
    assert order == ["ours", "Pi"] * 3


def test_each_side_counts_its_median_run():
    order: list[str] = []
    medians = compare.interleaved({"ours": _side("ours", [5.0, 1.0, 2.0], order),
                                   "Pi": _side("Pi", [3.0, 9.0, 4.0], order)}, 3)
    assert medians["ours"].cpu == 2.0 and medians["ours"].answer["cpu"] == 2.0
    assert medians["Pi"].cpu == 4.0
    assert medians["ours"].peak_mb == 102.0 and medians["Pi"].peak_mb == 104.0


def test_one_round_is_the_run_itself():
    order: list[str] = []
    medians = compare.interleaved({"ours": _side("ours", [7.0], order)}, 1)
    assert medians["ours"].cpu == 7.0 and order == ["ours"]


def test_a_time_against_pi_is_the_median_of_the_rounds_ratios():
    order: list[str] = []
    # A slow stretch in round 2 slows both turns: each side's median would say 3.0 / 2.0,
    # the rounds' ratios say 1.0, 1.0 and 3.0, whose median is 1.0.
    runs = compare.interleaved_runs({"ours": _side("ours", [1.0, 3.0, 6.0], order),
                                     "Pi": _side("Pi", [1.0, 3.0, 2.0], order)}, 3)
    assert order == ["ours", "Pi"] * 3
    assert compare.paired_ratio(runs["ours"], runs["Pi"]) == 1.0
    assert compare.interleaved({"ours": _side("ours", [1.0, 3.0, 6.0], []),
                                "Pi": _side("Pi", [1.0, 3.0, 2.0], [])}, 3)["ours"].cpu == 3.0


def test_a_slower_side_shows_in_its_ratio():
    runs = compare.interleaved_runs({"ours": _side("ours", [2.0, 2.6, 2.4], []),
                                     "Pi": _side("Pi", [1.0, 2.0, 1.0], [])}, 3)
    assert compare.paired_ratio(runs["ours"], runs["Pi"]) == 2.0   # of 2.0, 1.3 and 2.4


def test_the_sizes_that_judge_a_figure_run_every_round():
    sizes = (50_000, 100_000, 200_000, 400_000)
    assert [compare.rounds_at(size, sizes) for size in sizes] == [
        compare.ROUNDS, compare.GROWTH_ROUNDS, compare.ROUNDS, compare.ROUNDS]


def test_pi_takes_its_turn_between_the_first_two_of_ours():
    order: list[str] = []
    sides = compare.second_turn({"msgspec": _side("msgspec", [1.0], order),
                                 "stdlib": _side("stdlib", [1.0], order)},
                                "Pi", _side("Pi", [1.0], order))
    compare.interleaved_runs(sides, 1)
    assert order == ["msgspec", "Pi", "stdlib"]
