"""The workers' trace (games/core/live/tracing.py) and its reading (benchmarks/cast_trace.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import cast_trace
from games.core.live import tracing
from tests.core import test_consumers
from tests.core.test_consumers import add, connect
from tests.sockets import frames_before, receive, version_is

tally = test_consumers.tally  # two seats, a host


@pytest.fixture
def traced(tmp_path: Path):
    tracing.trace_into(str(tmp_path))
    yield tmp_path
    tracing.trace_into(None)


def test_nothing_is_written_unless_a_directory_is_named(tmp_path: Path):
    tracing.trace_into(None)
    tracing.mark("ack", 1, 0, 5)
    assert not tracing.enabled()
    assert list(tmp_path.iterdir()) == []


def test_each_mark_is_a_line_of_this_process_with_the_wall_clock(traced: Path):
    tracing.mark("ack", 7, 2, 11)
    tracing.mark("published", "match.7.seat-2", 11, "movers")
    [marks] = [path.read_text().splitlines() for path in traced.iterdir()]
    assert [line.split()[1:] for line in marks] == [
        ["ack", "7", "2", "11"],
        ["published", "match.7.seat-2", "11", "movers"],
    ]
    marked = cast_trace.read(traced)
    assert [mark.point for mark in marked] == ["ack", "published"]
    assert marked[0].at <= marked[1].at


def write(directory: Path, process: str, lines: list[str]) -> None:
    (directory / f"{process}.txt").write_text("".join(f"{line}\n" for line in lines))


def test_an_own_frame_held_for_the_other_workers_version_is_traced_to_that_versions_part(
    tmp_path: Path,
):
    """Seat 0 moves on worker 1 (v5), seat 1 on worker 2 (v6). Seat 1's own frame of v6 comes
    at once but waits at its socket for v5's frame of seat 1, which worker 1 published in the
    rest of v5's table 37 ms later. Another match's marks are left out."""
    write(
        tmp_path,
        "1",
        [
            "100.000 ack 7 0 5",
            "100.010 published match.7.seat-0 5 movers",
            "100.011 came 7 0 5",
            "100.011 sent 7 0 5",
            "100.030 published match.7.spectators 5 rest",
            "100.050 published match.7.seat-1 5 rest",
            "100.060 gallery_came match.7.spectators 5",
            "100.080 handing match.7.spectators 5,6",
            "100.089 handed match.7.spectators 5,6",
            "100.100 trip 7 30.00 12.00 4.00",
            "100.200 ack 9 0 5",
        ],
    )
    write(
        tmp_path,
        "2",
        [
            "100.005 ack 7 1 6",
            "100.015 published match.7.seat-1 6 movers",
            "100.016 came 7 1 6",
            "100.052 came 7 1 5",
            "100.052 sent 7 1 5",
            "100.053 sent 7 1 6",
        ],
    )
    trace = cast_trace.of_match(cast_trace.read(tmp_path), 7)
    assert trace.acks == {5: (100.0, 0, "1"), 6: (100.005, 1, "2")}
    measured = {
        name: sorted(round(v * 1000, 3) for v in values)
        for name, values in cast_trace.stages(trace)
    }
    assert measured["the ack to the own frame published"] == [10.0, 10.0]
    assert measured["then held there for the versions before"] == [0.0, 37.0]
    assert measured["the ack to the own frame sent, in all"] == [11.0, 48.0]
    assert measured["the ack to the spectators' frame published"] == [30.0]
    assert measured["a gallery's wait before a hand-out"] == [20.0]
    assert measured["a gallery's hand-out"] == [9.0]
    assert measured["of it the row held"] == [12.0]
    held = cast_trace.held_waits(trace)
    assert held.keys() == {(True, "rest")}
    assert held[(True, "rest")][0] == 1
    assert held[(True, "rest")][1] == pytest.approx(0.037)
    report = cast_trace.report(trace, "a test")
    assert "| the other worker | the rest part | 1 | 37 |" in report


@pytest.mark.django_db(transaction=True)
async def test_a_move_is_marked_where_it_is_answered_and_where_its_frame_reaches_the_seat(
    tally, traced: Path
):
    match, ada, bob, _host = tally
    ada_ws, bob_ws = await connect(match, ada), await connect(match, bob)
    for socket in (ada_ws, bob_ws):
        assert (await receive(socket))["type"] == "full"
    await add(ada_ws, match.version, "t1")
    moved = match.version + 1
    for socket in (ada_ws, bob_ws):
        await frames_before(socket, version_is(moved))  # Ada's ack comes first
    for socket in (ada_ws, bob_ws):
        await socket.disconnect()
    trace = cast_trace.of_match(cast_trace.read(traced), match.pk)
    assert list(trace.acks) == [moved] and trace.acks[moved][1] == 0
    assert {(0, moved), (1, moved)} <= set(trace.came) & set(trace.sent)
    assert trace.sent[(0, moved)] >= trace.came[(0, moved)] >= trace.acks[moved][0]
