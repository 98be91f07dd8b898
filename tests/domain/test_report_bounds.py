"""What a quote report lists in full: the first exclusions of each kind, snapshot id runs."""

from __future__ import annotations

from comparator.domain.report_bounds import EXCLUDED_PER_KIND, id_ranges, listed_exclusions


def test_the_first_exclusions_of_each_kind_are_listed_in_the_plans_order() -> None:
    items = [("stock", i) for i in range(50)] + [("network", i) for i in range(3)]
    items += [("stock", 99), ("", 1), ("", 2)]
    listed = [items[i] for i in listed_exclusions(kind for kind, _ in items)]
    stock = [i for i in listed if i[0] == "stock"]
    assert stock == [("stock", i) for i in range(EXCLUDED_PER_KIND)]
    assert [i for i in listed if i[0] != "stock"] == [*items[50:53], ("", 1), ("", 2)]
    assert listed == [i for i in items if i in listed]  # the plan's order, each once
    assert listed_exclusions([]) == []


def test_snapshot_ids_become_runs_of_consecutive_integers() -> None:
    ids = ["10", "2", "3", "1", "7", "9", "8", "x-1", "042", "3"]
    assert id_ranges(ids) == [("1", "3"), ("7", "10"), ("042", "042"), ("x-1", "x-1")]
    assert id_ranges([str(i) for i in range(1, 10_001)]) == [("1", "10000")]
    assert id_ranges([]) == []


def test_an_id_is_a_number_only_when_it_reads_back_as_the_same_text() -> None:
    texts = ["0", "00", "7", "07", "10", "²", "٣", "1²", "-1", "+1", " 1", "1_000", ""]
    numbers = [t for t in texts if t.isdigit() and t.isascii() and str(int(t)) == t]
    assert numbers == ["0", "7", "10"]
    assert id_ranges(texts) == [("0", "0"), ("7", "7"), ("10", "10")] + [
        (t, t) for t in sorted(set(texts) - set(numbers))
    ]
