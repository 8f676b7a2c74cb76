"""The proof that hidden information stays hidden: no scout result and no unrevealed tile or mine
reaches the opponent or a spectator before its reveal, on any channel, and after each board
everything on it reaches everyone.

Two matches are played over real websockets on twin boards: the squares a claim reveals are the
same in both, every other square differs where it can (the mines moved, the tiles reshuffled, the
tiles a mine-hitting claim leaves hidden changed), so every scout result differs too. Each match
is scripted move by move (scouts by both players, claims that hit a mine and claims that do not,
a pass, a turn clock run out). Recorded for the EC, the DMO and a spectator: every websocket
frame (data and html), the match page and the export after every move, the replay link during
the match, and every replay step and the export afterwards.

Two kinds of check. Structural, against the truth at each version: the hidden squares' values as
the grid would render them, the other seat's notes as the notebook would, any board's lines, any
secret key. And the twins: everything each of them received is the same in both matches once
what is allowed to differ is set aside (times and ids, the viewer's own notebook, finished boards
and their analysis), so no part of it depends on what the viewer may not know.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from games.core.game import fairness
from games.core.live.client import ArenaClient, MatchSocket
from games.core.match import seating
from games.core.models import Deadline, Match
from games.pointsweeper import engine, flow
from games.pointsweeper import page as pages
from tests.frames import with_views
from tests.live_server import in_db, seated_sockets

pytestmark = pytest.mark.django_db(transaction=True)

EC, DMO = 0, 1
AUDIENCES = ("ec", "dmo", "guest")
SEAT_OF = {"ec": EC, "dmo": DMO, "guest": None}

# Each board's script, by the first (F) and second (S) player to move on it.
F_SCOUTS = (("K", "e4"), ("N1", "f3"))
S_SCOUT = ("Q", "d5")
F_CLAIM = ("R1", "a1", "c1")  # three tiles
S_MINE_CLAIM = ("B1", "h8", "f6")  # passes over the mine on g7: h8 and f6 stay hidden
S_CLAIM = ("N1", "b8", "c6")  # two tiles
REVEALED = frozenset({"a1", "b1", "c1", "g7", "b8", "c6"})
LEFT_HIDDEN = frozenset({"h8", "f6"})
# (board, chooser's "first", how the second player ends it)
BOARD_PLAN = ((1, True, "timeout"), (2, True, "pass"), (3, False, "pass"))


# --- the twin boards -----------------------------------------------------------------------------


def scout_results(board: engine.Board) -> list[tuple[int, int]]:
    """What the three scouts of the script report on ``board`` (nothing claimed yet when the
    first two scout; the third comes after a1-c1 and g7 are claimed)."""
    first = engine.scout(board, *F_SCOUTS[0], True)
    second = engine.scout(board, *S_SCOUT, False)
    third = engine.scout(board, *F_SCOUTS[1], True, {"a1", "b1", "c1", "g7"})
    return [first, second, third]


def twin_boards(seed: int) -> tuple[str, str]:
    """A board for the script and its twin: the same on the squares the claims reveal, different
    on every other square where a shuffle can make it so, and different in every scout result."""
    rng = random.Random(seed)
    cells = list(engine.generate_board(seed).cells)
    index = {square: i for i, square in enumerate(engine.SQUARES)}
    tiles_only = (REVEALED - {"g7"}) | LEFT_HIDDEN
    free = [s for s in engine.SQUARES if s not in REVEALED | LEFT_HIDDEN]
    for square in tiles_only:  # move a mine off the claim paths
        if cells[index[square]] == engine.MINE:
            spot = next(s for s in free if cells[index[s]] != engine.MINE)
            cells[index[spot]], cells[index[square]] = engine.MINE, 3
    if cells[index["g7"]] != engine.MINE:
        spot = next(s for s in free if cells[index[s]] == engine.MINE)
        cells[index[spot]], cells[index["g7"]] = cells[index["g7"]], engine.MINE
    board = engine.Board(tuple(cells))
    for _ in range(1000):
        twin = list(cells)
        values = [cells[index[s]] for s in free]
        rng.shuffle(values)
        for square, value in zip(free, values, strict=True):
            twin[index[square]] = value
        for square in LEFT_HIDDEN:
            twin[index[square]] = (cells[index[square]] + 2 + 2) % 8 - 2  # another tile value
        other = engine.Board(tuple(twin))
        differ = sum(1 for s in free if other[s] != board[s])
        results = zip(scout_results(board), scout_results(other), strict=True)
        if differ >= 30 and all(a != b for a, b in results):
            return engine.format_board(board), engine.format_board(other)
    raise AssertionError("no twin found")


# --- what was recorded -------------------------------------------------------------------------


@dataclass
class Recording:
    """Everything one match sent to the EC, the DMO and the spectator."""

    match_id: int = 0
    public_id: str = ""
    frames: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    pages: dict[str, list[str]] = field(default_factory=lambda: {a: [] for a in AUDIENCES})
    exports: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {a: [] for a in AUDIENCES}
    )
    replays: dict[str, list[str]] = field(default_factory=lambda: {a: [] for a in AUDIENCES})
    states: dict[int, dict[str, Any]] = field(default_factory=dict)
    notes: list[dict[str, Any]] = field(default_factory=list)
    boards: list[str] = field(default_factory=list)
    server_seed: str = ""  # revealed only once the match is over (docs/fairness.md)
    finished_version: int = 0


def last_event(socket_: MatchSocket) -> dict[str, Any]:
    return next(f["event"] for f in reversed(socket_.frames) if f.get("type") == "update")


def create_match(boards: list[str]) -> Match:
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    match = seating.create_match(
        host=users.get(username="boss"),
        game_key="pointsweeper",
        title="Privacy twins",
        settings={
            "boards": "pasted",
            **dict(zip(flow.PASTED, boards, strict=True)),
            "scout_turns": 1,
        },
        roles=["EC", "DMO"],
    )
    for name, seat in zip(("ec", "dmo"), match.seats.order_by("index"), strict=True):
        seating.take_seat(match, users.get(username=name), seat.invite_token)
    match.refresh_from_db()
    return match


def run_out_the_turn_clock(match_id: int) -> None:
    """The turn clock of the player to move runs out now (as it would after 3 minutes): the
    state's deadline and its Deadline row are moved together, and the worker's scheduler fires it
    as it fires every clock."""
    due = timezone.now() - timedelta(milliseconds=10)
    with transaction.atomic():
        match = Match.objects.select_for_update().get(pk=match_id)
        state = match.state
        state["deadlines"]["turn"] = due.isoformat()
        Match.objects.filter(pk=match_id).update(state=state)
        rows = Deadline.objects.filter(match=match, key="turn", fired_at=None, cancelled=False)
        assert rows.update(due_at=due) == 1


async def play_match(url: str, boards: list[str]) -> Recording:
    match = await in_db(lambda: create_match(boards))
    rec = Recording(match_id=match.pk, public_id=match.public_id, boards=list(boards))
    clients: dict[str, ArenaClient] = {}
    page_url = f"/m/{match.public_id}/"

    def fetch(name: str, replay: bool) -> None:
        client = clients[name]
        rec.pages[name].append(client.get(page_url))
        rec.exports[name].append(json.loads(client.get(f"{page_url}export.json")))
        if replay:  # before the end, the replay link leads back to the match page
            rec.pages[name].append(client.get(f"{page_url}replay/"))

    async def snapshot(*, replay: bool = False) -> None:
        await asyncio.gather(*(asyncio.to_thread(fetch, name, replay) for name in AUDIENCES))

    async with seated_sockets(url, match, json_only=False) as seated:
        clients.update(seated.clients)
        sockets, guest, everyone = seated.sockets, seated.watcher, seated.everyone

        async def caught_up(version: int) -> None:
            for socket_ in everyone:
                await socket_.wait_version(version, timeout=20)
            await snapshot()

        async def move(seat: int, action: dict[str, Any]) -> None:
            version = await sockets[seat].act(action)
            await guest.wait_version(version, timeout=20)
            if "board_over" in last_event(guest)["data"]:
                await analysed()
            else:
                await caught_up(version)

        async def analysed() -> None:
            """A board is over: its analysis comes (from the worker's scheduler) before the
            next board begins, and before the snapshot, so the twins' versions agree."""
            frame = await guest.recv_until("update", timeout=120)
            assert frame["event"]["kind"] == "analysis"
            await caught_up(frame["version"])
            await snapshot(replay=True)

        for board_no, first_chosen, ending in BOARD_PLAN:
            game = guest.latest_view()["game"]
            assert (game["board_no"], game["phase"]) == (board_no, "order")
            chooser = game["chooser"]
            await move(chooser, {"type": "choose_order", "first": first_chosen})
            first = chooser if first_chosen else 1 - chooser
            second = 1 - first
            await move(first, {"type": "scout", "piece": F_SCOUTS[0][0], "square": F_SCOUTS[0][1]})
            await move(second, {"type": "scout", "piece": S_SCOUT[0], "square": S_SCOUT[1]})
            piece, start, end = F_CLAIM
            await move(first, {"type": "claim", "piece": piece, "start": start, "end": end})
            piece, start, end = S_MINE_CLAIM
            await move(second, {"type": "claim", "piece": piece, "start": start, "end": end})
            await move(first, {"type": "scout", "piece": F_SCOUTS[1][0], "square": F_SCOUTS[1][1]})
            piece, start, end = S_CLAIM
            await move(second, {"type": "claim", "piece": piece, "start": start, "end": end})
            await move(first, {"type": "pass"})
            if ending == "timeout":
                before = guest.version
                await in_db(lambda: run_out_the_turn_clock(match.pk))
                frame = await guest.recv_until("update", timeout=20)
                assert frame["version"] == before + 1 and frame["event"]["kind"] == "bank_empty"
                assert "board_over" in frame["event"]["data"]
                await analysed()
            else:
                await move(second, {"type": "pass"})
            assert len(guest.latest_view()["game"]["history"]) == board_no
        for name, socket_ in zip(AUDIENCES, everyone, strict=True):
            rec.frames[name] = with_views(socket_.frames)

    await in_db(match.refresh_from_db)
    assert match.status == Match.Status.FINISHED
    rec.server_seed, rec.finished_version = match.server_seed, match.finished_version
    # Each version's state, rebuilt from the events' moves (events keep no state).
    events = match.events.order_by("version")
    rec.states = await in_db(lambda: {event.version: event.state for event in events})
    rec.notes = [
        note
        for record in match.state["history"]
        for seat in ("0", "1")
        for note in record["notebooks"][seat]
    ]

    def replays(name: str) -> list[str]:
        steps = range(1, match.version + 1)
        return [clients[name].get(f"{page_url}replay/?v={version}") for version in steps]

    found = await asyncio.gather(*(asyncio.to_thread(replays, name) for name in AUDIENCES))
    rec.replays = dict(zip(AUDIENCES, found, strict=True))
    await snapshot()
    return rec


# --- the truth at each version -----------------------------------------------------------------


@dataclass
class Secrets:
    """What a viewer may not know at one version."""

    board_no: int  # the board in play or about to begin (the last when the match is over)
    hidden: dict[str, str]  # square -> value, on that board, not revealed
    unseen_boards: list[str]  # the boards not yet over, as text
    other_notes: list[dict[str, Any]]  # scout notes on the board in play, not the viewer's
    own_notes: list[dict[str, Any]]
    finished: int  # how many boards are over
    # hidden squares the public log proves to be tiles (the rest of a claim that hit mines),
    # drawn with a mark and never their value
    proven: set[str] = field(default_factory=set)


def secrets_at(state: dict[str, Any], seat: int | None, boards: list[str]) -> Secrets:
    if not state:  # before the start (seats being taken): everything is hidden
        board = engine.parse_board(boards[0])
        return Secrets(1, {s: str(board[s]) for s in engine.SQUARES}, list(boards), [], [], 0)
    finished = len(state["history"])
    board_no = state["board_no"]
    unseen = state["boards"][finished:]
    hidden: dict[str, str] = {}
    other: list[dict[str, Any]] = []
    own: list[dict[str, Any]] = []
    if state["phase"] != "over":
        board = engine.parse_board(state["boards"][board_no - 1])
        revealed = state["play"]["revealed"] if state["play"] else {}
        hidden = {s: str(board[s]) for s in engine.SQUARES if s not in revealed}
        if state["play"]:
            for key, notes in state["play"]["notebooks"].items():
                (own if seat is not None and int(key) == seat else other).extend(notes)
    proven = pages.proven_tiles(state["play"]["log"]) if state["play"] else set()
    return Secrets(board_no, hidden, unseen, other, own, finished, proven & set(hidden))


# --- reading what was sent ---------------------------------------------------------------------

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class PanelSplitter(HTMLParser):
    """The top-level elements of a frame's html, by id."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.depth = 0
        self.starts: list[tuple[str, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth == 0:
            self.starts.append((dict(attrs).get("id") or "", self._offset()))
        if tag not in VOID:
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID:
            self.depth -= 1

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def split(self, text: str) -> dict[str, str]:
        self._line_starts = [0]
        for line in text.splitlines(keepends=True):
            self._line_starts.append(self._line_starts[-1] + len(line))
        self.feed(text)
        self.close()
        ends = [offset for _, offset in self.starts[1:]] + [len(text)]
        return {
            panel_id: text[start:end].strip()
            for (panel_id, start), end in zip(self.starts, ends, strict=True)
        }


def panels_of(text: str) -> dict[str, str]:
    """The panels sent whole in a frame's html (none when every changed panel went as a patch)."""
    return PanelSplitter().split(text) if text else {}


CELL = re.compile(
    r'<button type="button" class="cell ([^"]*)" data-cell="([a-h][1-8])" aria-label="([^"]*)"'
    r'[^>]*><span class="gem" aria-hidden="true">([^<]*)</span>'
)
BOARD_SECTION = re.compile(
    r'<section id="ps-board" class="panel ps-board" data-board="(\d)".*?</section>', re.S
)
MATCH_VIEW = re.compile(r'<script id="match-view" type="application/json">(.*?)</script>', re.S)
PAGE_VERSION = re.compile(r'<div id="match-root" [^>]*data-version="(\d+)"')
REPLAY_VERSION = re.compile(r'<div id="replay-step" data-version="(\d+)"')
NOTE = re.compile(r'<li class="ps-note">(.*?)</li>', re.S)


def walk(value: Any, path: tuple = ()):
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from walk(item, (*path, i))


def mines_words(note: dict[str, Any]) -> str:
    return f"{note['mines']} mine{'s' if note['mines'] != 1 else ''}"


def note_text(note: dict[str, Any]) -> str:
    """A note as the notebook draws it."""
    where = f"{note['piece']} on {note['square']}"
    mines = f"<b>{note['mines']}</b> mine{'s' if note['mines'] != 1 else ''}"
    return f"{where}: sum <b>{note['sum']}</b>, {mines}"


# --- the structural checks -----------------------------------------------------------------------


def check_text(text: str, secrets: Secrets, where: str) -> None:
    """No line of a board not yet over, in any form."""
    for board in secrets.unseen_boards:
        for line in board.splitlines():
            assert line not in text, f"{where}: a line of a hidden board"
    assert '"truth"' not in text and '"boards"' not in text, where


def check_game_view(game: dict[str, Any], secrets: Secrets, seat: int | None, where: str) -> None:
    if not game:
        return
    assert "boards" not in game and "truth" not in game, where
    assert [h["board_no"] for h in game["history"]] == list(range(1, secrets.finished + 1)), where
    play = game.get("play")
    if play:
        assert "truth" not in play and "notebooks" not in play, where
        for row in play["grid"]:
            for cell in row:
                if cell["square"] in secrets.hidden:
                    assert cell == {"square": cell["square"], "state": "hidden"}, where
        assert play["notebook"] == (secrets.own_notes if seat is not None else None), where
    grid = game.get("board_grid") or {}
    if grid.get("board_no") == secrets.board_no:
        for row in grid["rows"]:
            for cell in row:
                if cell["cell"] in secrets.hidden:
                    mark = "○" if cell["cell"] in secrets.proven else ""
                    assert (cell["css"], cell["text"]) == ("ps-hidden", mark), where
    for path, item in walk({k: v for k, v in game.items() if k not in ("history", "finished")}):
        if isinstance(item, dict) and ("sum" in item):
            assert path[:2] == ("play", "notebook"), f"{where}: a scout result at {path}"


def check_event(event: dict[str, Any], secrets: Secrets, seat: int | None, where: str) -> None:
    data = event.get("data") or {}
    if "scout" in data:
        assert data["scout"]["seat"] == seat, f"{where}: another seat's scout result"
    if "board_over" not in data and event.get("kind") != "analysis":
        for path, item in walk(data):
            if isinstance(item, dict):
                assert not ("sum" in item and path[:1] != ("scout",)), where
                if item.get("square") in secrets.hidden:
                    assert item.get("kind") not in ("tile", "mine") and "value" not in item, where
        for square in data.get("values") or {}:
            assert square not in secrets.hidden, where


def check_html(text: str, secrets: Secrets, seat: int | None, where: str) -> None:
    for board in BOARD_SECTION.finditer(text):
        shown_no = int(board.group(1))
        assert shown_no <= secrets.board_no, where
        cells = CELL.findall(board.group(0))
        assert len(cells) == 64, where
        for css, square, label, value in cells:
            if shown_no == secrets.board_no and square in secrets.hidden:
                proven = square in secrets.proven
                mark = "○" if proven else ""
                assert css.split()[0] == "ps-hidden" and value == mark, f"{where}: {square} shown"
                words = f"{square}, hidden: a tile" if proven else f"{square}, hidden"
                assert label.startswith(words) and (proven or label == words), where
    notes = NOTE.findall(text)
    if notes or 'id="ps-notebook"' in text:
        assert seat is not None, f"{where}: a notebook for a spectator"
        assert len(notes) == len(secrets.own_notes), where
        for drawn, note in zip(notes, secrets.own_notes, strict=True):
            assert note_text(note) in drawn, where
    # As the notebook would draw them, or the finished boards (which list each board's scouts).
    current = MATCH_VIEW.sub("", SECTION["ps-history"].sub("", text))
    for note in secrets.other_notes:
        assert note_text(note) not in text, where
        assert f"{note['piece']} on {note['square']}: sum" not in current, where


def audit(rec: Recording, name: str) -> int:
    """Every structural check over everything ``name`` received; returns how many items."""
    seat = SEAT_OF[name]
    count = 0

    def at(version: int) -> Secrets:
        return secrets_at(rec.states[version], seat, rec.boards)

    def check_seed(text: str, version: int, where: str) -> None:
        """The server seed only once the match is over; its verification record with it."""
        if version < rec.finished_version:
            assert rec.server_seed not in text and '"verify"' not in text, where

    for frame in rec.frames[name]:
        if frame.get("type") not in ("full", "update"):
            continue
        secrets = at(frame["version"])
        where = f"{name} frame {frame['version']}"
        check_seed(json.dumps(frame), frame["version"], where)
        check_text(json.dumps(frame), secrets, where)
        check_game_view(frame["view"]["game"], secrets, seat, where)
        if frame.get("event"):
            check_event(frame["event"], secrets, seat, where)
        check_html(frame.get("html") or "", secrets, seat, where)
        count += 1
    for page in [*rec.pages[name], *rec.replays[name]]:
        replay = REPLAY_VERSION.search(page)  # the replay link opens the replay once it is over
        version = int((replay or PAGE_VERSION.search(page)).group(1))
        secrets = at(version)
        where = f"{name} {'replay' if replay else 'page'} at {version}"
        check_seed(page, rec.finished_version if replay else version, where)
        check_text(page, secrets, where)
        check_game_view(json.loads(MATCH_VIEW.search(page).group(1))["game"], secrets, seat, where)
        check_html(page, secrets, seat, where)
        count += 1
    for export in rec.exports[name]:
        secrets = at(export["version"])
        where = f"{name} export at {export['version']}"
        check_seed(json.dumps(export), export["version"], where)
        # Once over, the export carries the whole record for the verifier (every board is
        # shown by then): the checks below are of what the viewer's own log says.
        if export["version"] >= rec.finished_version:
            assert export["verify"]["match_id"] == rec.public_id, where
            export = {key: value for key, value in export.items() if key != "verify"}
        check_text(json.dumps(export), secrets, where)
        check_game_view(export["view"], secrets, seat, where)
        for event in export["events"]:  # each as it was when it happened
            check_event(event, at(event["version"]), seat, f"{where}, event {event['version']}")
        count += 1
    return count


# --- the twin comparison -----------------------------------------------------------------------

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?")
TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")  # CSRF tokens
SECTION = {
    key: re.compile(rf'<section id="{key}".*?</section>', re.S)
    for key in ("ps-history", "ps-review", "ps-notebook", "ps-board")
}


def plain(text: str, rec: Recording) -> str:
    text = text.replace(rec.public_id, "MATCH")
    # Each twin's seeds are its own (docs/fairness.md): its commitment, whole or short.
    sealed = fairness.commitment(rec.public_id, rec.server_seed)
    text = text.replace(sealed, "SEAL").replace(sealed[:8], "SEAL")
    text = TOKEN.sub("TOKEN", text)
    return ISO.sub("TIME", text)


def game_part(game: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The game view without what may differ between the twins: finished boards, their analysis,
    the board shown between boards, the viewer's own notebook."""
    kept = copy.deepcopy(game)
    for key in ("history", "reviews", "finished"):
        kept.pop(key, None)
    if kept.get("phase") != "play":
        kept.pop("board_grid", None)
    if kept.get("play") and seat is not None:
        kept["play"].pop("notebook")
    return kept


def event_part(event: dict[str, Any] | None, seat: int | None) -> dict[str, Any] | None:
    if not event:
        return event
    kept = copy.deepcopy(event)
    data = kept.get("data") or {}
    over = "board_over" in data or kept.get("kind") == "analysis" or "scout" in data
    for key in ("board_over", "analysis", "scout"):
        data.pop(key, None)
    if over:
        kept.pop("description", None)
    return kept


def html_part(panels: dict[str, str], phase: str | None, seat: int | None, rec: Recording) -> dict:
    dropped = {"ps-history", "ps-review"} | ({"ps-notebook"} if seat is not None else set())
    if phase != "play":
        dropped.add("ps-board")
    return {key: plain(text, rec) for key, text in panels.items() if key not in dropped}


def frame_part(frame: dict[str, Any], seat: int | None, rec: Recording) -> str:
    game = frame["view"]["game"]
    view = {**frame["view"], "game": game_part(game, seat)}
    view["match"] = {k: v for k, v in view["match"].items() if k != "id"}
    kept = {
        "type": frame["type"],
        "version": frame["version"],
        "event": event_part(frame.get("event"), seat),
        "view": view,
        "html": html_part(panels_of(frame.get("html") or ""), game.get("phase"), seat, rec),
    }
    return plain(json.dumps(kept, sort_keys=True), rec)


# The header's count of the viewer's unread notifications counts every match of theirs, and the
# twins are played one after the other by the same accounts (what a notification says is checked
# in tests/notifications).
UNREAD = re.compile(r'<a href="/notifications/"[^>]*>Notifications.*?</a>')


def page_part(page: str, seat: int | None, rec: Recording) -> str:
    page = UNREAD.sub("notifications", page)
    view = json.loads(MATCH_VIEW.search(page).group(1))
    phase = view["game"].get("phase")
    view["game"] = game_part(view["game"], seat)
    view["match"].pop("id", None)
    text = MATCH_VIEW.sub(lambda _: json.dumps(view, sort_keys=True), page)
    dropped = {"ps-history", "ps-review"} | ({"ps-notebook"} if seat is not None else set())
    if phase != "play":
        dropped.add("ps-board")
    for key in dropped:
        text = SECTION[key].sub(key, text)
    return plain(text, rec)


def replay_part(page: str, seat: int | None, rec: Recording) -> str:
    """A replay step's view and panels (its list of the board's events says each in words,
    the viewer's own scout results among them)."""
    view = MATCH_VIEW.search(page).group(0)
    panels = page.split('<div class="replay-panels"', 1)[1]
    return page_part(view + panels, seat, rec)


def any_page_part(page: str, seat: int | None, rec: Recording) -> str:
    return (replay_part if REPLAY_VERSION.search(page) else page_part)(page, seat, rec)


def export_part(export: dict[str, Any], seat: int | None, rec: Recording) -> str:
    kept = {
        "version": export["version"],
        "viewer": export["viewer"],
        "match": {k: v for k, v in export["match"].items() if k != "id"},
        "events": [event_part(e, seat) for e in export["events"]],
        "view": game_part(export["view"], seat),
    }
    return plain(json.dumps(kept, sort_keys=True), rec)


def compare_twins(one: Recording, two: Recording, name: str) -> int:
    seat = SEAT_OF[name]
    frames = [
        [frame_part(f, seat, rec) for f in rec.frames[name] if f.get("type") in ("full", "update")]
        for rec in (one, two)
    ]
    assert len(frames[0]) == len(frames[1])
    for a, b in zip(*frames, strict=True):
        assert a == b, f"{name}: a frame differs between the twins"
    for kind in ("pages", "replays"):
        pages = [
            [any_page_part(p, seat, rec) for p in getattr(rec, kind)[name]] for rec in (one, two)
        ]
        assert len(pages[0]) == len(pages[1])
        for a, b in zip(*pages, strict=True):
            assert a == b, f"{name}: a {kind[:-1]} differs between the twins"
    exports = [[export_part(e, seat, rec) for e in rec.exports[name]] for rec in (one, two)]
    for a, b in zip(*exports, strict=True):
        assert a == b, f"{name}: an export differs between the twins"
    return len(frames[0]) + len(exports[0]) + 2 * len(one.pages[name])


# --- after each board, everything on it reaches everyone --------------------------------------


def check_everything_revealed(rec: Recording, boards: list[str], name: str) -> None:
    ended = [
        f
        for f in rec.frames[name]
        if f.get("type") == "update" and "board_over" in f["event"]["data"]
    ]
    assert [f["event"]["data"]["board_over"]["board_no"] for f in ended] == [1, 2, 3]
    for frame, board in zip(ended, boards, strict=True):
        over = frame["event"]["data"]["board_over"]
        truth = rec.states[frame["version"]]["history"][over["board_no"] - 1]
        assert over["board"] == board and over["notebooks"] == truth["notebooks"]
        assert all(over["notebooks"][s] for s in ("0", "1"))  # both players' scouts, with results
        shown = frame["view"]["game"]["history"][over["board_no"] - 1]
        assert shown["board"] == board and shown["notebooks"] == truth["notebooks"]
    final_page = rec.pages[name][-1]
    assert 'id="ps-history"' in final_page
    for note in rec.notes:
        said = f"{note['piece']} on {note['square']}: sum {note['sum']}, {mines_words(note)}"
        assert said in final_page, f"{name} does not see {said}"
    last = engine.parse_board(boards[-1])
    cells = CELL.findall(BOARD_SECTION.search(final_page).group(0))
    for css, square, _label, value in cells:
        assert value == str(last[square]) and "ps-hidden" not in css
    for page in rec.pages[name]:  # between boards, the finished board is shown whole
        found = BOARD_SECTION.search(page)
        view = json.loads(MATCH_VIEW.search(page).group(1))["game"]
        if view["phase"] == "order" and view["history"]:
            number = int(found.group(1))
            assert number == len(view["history"])
            board = engine.parse_board(boards[number - 1])
            for _css, square, _label, value in CELL.findall(found.group(0)):
                assert value == str(board[square])


# --- the test ----------------------------------------------------------------------------------


@pytest.fixture
def accounts(make_user):
    for name in ("boss", "ec", "dmo"):
        make_user(name)


async def test_nothing_hidden_reaches_the_opponent_or_a_spectator_before_its_reveal(
    live_worker, accounts
):
    pairs = [twin_boards(seed) for seed in (11, 12, 13)]
    boards_a = [a for a, _ in pairs]
    boards_b = [b for _, b in pairs]
    one, two = await asyncio.gather(
        play_match(live_worker.url, boards_a), play_match(live_worker.url, boards_b)
    )
    # The twins tell their scouts apart: every scout result differs between them.
    assert len(one.notes) == len(two.notes) == 9
    for a, b in zip(one.notes, two.notes, strict=True):
        assert (a["piece"], a["square"], a["seat"]) == (b["piece"], b["square"], b["seat"])
        assert (a["sum"], a["mines"]) != (b["sum"], b["mines"])
    # Every scout, claim, pass and clock of the script happened, on all three boards.
    events = [f["event"]["kind"] for f in one.frames["guest"] if f.get("type") == "update"]
    assert events.count("scouted") == 9 and events.count("claimed") == 9
    assert events.count("bank_empty") == 1 and events.count("analysis") == 3
    mines_hit = [
        f["event"]["data"]["mines"]
        for f in one.frames["guest"]
        if f.get("type") == "update" and f["event"]["kind"] == "claimed"
    ]
    assert mines_hit.count(1) == 3 and mines_hit.count(0) == 6

    audited = {}
    for rec in (one, two):
        for name in AUDIENCES:
            audited[name] = audited.get(name, 0) + audit(rec, name)
    compared = {name: compare_twins(one, two, name) for name in AUDIENCES}
    for rec, boards in ((one, boards_a), (two, boards_b)):
        for name in AUDIENCES:
            check_everything_revealed(rec, boards, name)
    assert min(audited.values()) > 200 and min(compared.values()) > 100
