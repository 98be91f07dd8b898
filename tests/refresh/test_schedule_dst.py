"""Schedule arithmetic terminates and moves forward on every cron × zone, DST gaps and folds."""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from comparator.errors import InputError
from comparator.refresh.schedule import current_period, parse_cron
from tests.support.fuzz_schedule import CRON_FIELDS, DST_ZONES, SHORT_DAYS, SHORT_MINUTES

ZONES = tuple(sorted(set(DST_ZONES) | {z for z in available_timezones() if "/" in z}))

crons = st.one_of(
    st.builds(lambda *parts: " ".join(parts), *(st.sampled_from(c) for c in CRON_FIELDS)),
    st.builds(
        lambda d, h, m: f"{d} {h:02d}:{m:02d}",
        st.sampled_from(SHORT_DAYS),
        st.integers(0, 23),
        st.sampled_from(SHORT_MINUTES),
    ),
)
instants = st.datetimes(
    min_value=datetime(2024, 1, 1), max_value=datetime(2029, 1, 1), timezones=st.just(UTC)
)


@cache
def transitions(zone: ZoneInfo, year: int) -> tuple[datetime, ...]:
    """The UTC instants where the zone's offset changes in ``year`` (to the minute)."""
    found = []
    moment = datetime(year, 1, 1, tzinfo=UTC)
    step = timedelta(hours=1)
    while moment.year == year:
        after = moment + step
        if moment.astimezone(zone).utcoffset() != after.astimezone(zone).utcoffset():
            low, high = moment, after
            while high - low > timedelta(minutes=1):
                middle = low + (high - low) / 2
                same = middle.astimezone(zone).utcoffset() == low.astimezone(zone).utcoffset()
                low, high = (middle, high) if same else (low, middle)
            found.append(high)
        moment = after
    return tuple(found)


def check(cron: str, zone: ZoneInfo, now: datetime) -> None:
    try:
        trigger = parse_cron(cron, zone)
    except InputError as exc:
        assert "never comes" in str(exc)  # such as 31 November
        return
    started = time.monotonic()
    period = current_period(trigger, now)
    assert time.monotonic() - started < 10.0, (cron, zone, now)  # terminates, even under load
    following = trigger.next_after(period.start)
    start, utc_now = period.start.astimezone(UTC), now.astimezone(UTC)  # compare real instants
    if period.start is not now:  # a fire was found: it is the latest at or before now
        assert start <= utc_now, (cron, zone.key, now, period)
        assert following is None or following.astimezone(UTC) > utc_now, (cron, zone.key, now)
    fires = [
        f.astimezone(UTC)
        for f in trigger.fires(now - timedelta(hours=6), until=now + timedelta(hours=6))
    ]
    assert all(a < b for a, b in itertools.pairwise(fires)), (cron, zone.key, fires)
    for fire in fires:  # every fire is a wall time the cron names (or a skipped one moved on)
        assert trigger.get_next_fire_time(fire, fire) == trigger.next_after(fire)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True)
@given(cron=crons, zone=st.sampled_from(ZONES), now=instants, fold=st.booleans())
def test_current_period_terminates_and_is_the_latest_fire(
    cron: str, zone: str, now: datetime, fold: bool
) -> None:
    tz = ZoneInfo(zone)
    check(cron, tz, now.astimezone(tz).replace(fold=int(fold)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    cron=crons,
    zone=st.sampled_from(DST_ZONES),
    year=st.integers(2024, 2028),
    offset_min=st.integers(-150, 150),
)
def test_around_every_dst_change(cron: str, zone: str, year: int, offset_min: int) -> None:
    tz = ZoneInfo(zone)
    for change in transitions(tz, year):
        check(cron, tz, (change + timedelta(minutes=offset_min)).astimezone(tz))


def test_the_reported_hangs_finish() -> None:
    new_york, berlin = ZoneInfo("America/New_York"), ZoneInfo("Europe/Berlin")
    cases = [
        ("30 1 1 11 *", new_york, datetime(2026, 11, 1, 12, 0, tzinfo=new_york)),
        ("sun 02:30", berlin, datetime(2026, 10, 25, 12, 0, tzinfo=berlin)),
        ("daily 01:30", new_york, datetime(2026, 11, 1, 1, 45, tzinfo=new_york, fold=1)),
    ]
    for cron, zone, now in cases:
        period = current_period(parse_cron(cron, zone), now)
        assert period.start.hour in (1, 2) and period.start <= now
    fall_back = parse_cron("daily 01:30", new_york)
    first = datetime(2026, 11, 1, 1, 30, tzinfo=new_york)  # 01:30 EDT; 01:30 EST repeats it
    assert fall_back.next_after(first) == datetime(2026, 11, 2, 1, 30, tzinfo=new_york)
    with pytest.raises(InputError, match="never comes"):
        parse_cron("0 0 31 11 *", berlin)
    assert parse_cron("0 0 29 2 mon", berlin).next_after(first) is not None  # 2044-02-29
    spring = parse_cron("sun 02:30", berlin)  # 02:30 does not exist on 2026-03-29
    fire = spring.next_after(datetime(2026, 3, 28, tzinfo=berlin))
    assert fire == datetime(2026, 3, 29, 3, 30, tzinfo=berlin)
