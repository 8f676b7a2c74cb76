"""Turning a match into what one viewer may see: the view data, its panels and websocket frames.

Every page, frame, replay and export goes through ``view_of``; nothing else reads match state
for a viewer. Panels are the swappable top-level elements of a game's ``_panels.html`` (each
wrapped in ``{% panel %}``); a frame carries each panel with a hash of its HTML, so that a
connection sends a viewer only the panels that changed since the last frame it sent (the frame
as it travels: frame.py; what each audience was sent, for the next frame's patches:
panelcache.py).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.template import engines
from django.utils.safestring import mark_safe

from games.core.game.gamedef import State, Viewer
from games.core.match.authority import seat_holders
from games.core.match.replaying import state_at
from games.core.models import Event, Match
from games.core.render import jsondiff, panelcache
from games.core.render.frame import Frame, Panel, dumps, panels_of
from games.core.render.jinja import PANEL_SINK
from games.core.render.panelcache import Keeping, Sent

log = logging.getLogger(__name__)


ABORTED_PROMPT = "The host aborted the match: no one moves again."


def _stopped(game_view: dict[str, Any]) -> dict[str, Any]:
    """An aborted match's view: its state stays as it stood, but no one is to move any more and
    the prompt says so (not "to move", not what happens when a clock runs out)."""
    stopped = dict(game_view)
    if "to_move" in stopped:
        stopped["to_move"] = []
    if "prompt" in stopped:
        stopped["prompt"] = ABORTED_PROMPT
    return stopped


def view_of(
    match: Match,
    viewer: Viewer,
    state: dict[str, Any] | None = None,
    *,
    drafts: bool = True,
    game_view: dict[str, Any] | None = None,
    seats: list[Any] | None = None,
) -> dict[str, Any]:
    """The game's view for ``viewer`` plus the match facts everyone may know. With ``drafts``
    (the live page, not a replay) a seat also gets what it is composing and the host every
    seat's draft; no one else ever does. ``game_view``: the game's view of ``state`` for
    ``viewer``, already made; ``seats``: the match's seats, already read (an event's frames
    read them once for every audience)."""
    shown = match.state if state is None else state
    if game_view is None:
        game_view = match.game.view(shown, viewer)
    # The state an abort left (not an earlier one a replay steps through) is stopped.
    if match.status == match.Status.ABORTED and game_view and shown == match.state:
        game_view = _stopped(game_view)
    view: dict[str, Any] = {
        "game": game_view,
        "match": {
            "id": match.public_id,
            "status": match.status,
            "title": match.title,
            "result": match.result,
            # While paused, the moment the clocks stopped: a page shows each clock's time left
            # as of then ("0:11 left, stopped while paused").
            "paused_at": match.paused_at.isoformat() if match.paused_at else None,
        },
        "viewer": {"seat": viewer.seat, "host": viewer.is_host, "audience": viewer.audience},
    }
    if drafts:
        if seats is None:
            seats = list(match.seats.all())
        if viewer.seat is not None:
            view["draft"] = next((s.draft for s in seats if s.index == viewer.seat), None)
        elif viewer.is_host:
            view["drafts"] = {str(s.index): s.draft for s in seats if s.draft is not None}
    return view


def panels_template(match: Match) -> str:
    template_dir = match.game.template_dir
    return f"{template_dir}/_panels.html" if template_dir else "core/_generic_panels.html"


def render_panel_list(
    match: Match, view: dict[str, Any], *, version: int, oob: bool, live: bool = True
) -> list[tuple[str, str]]:
    """The panels for ``view`` as (element id, html), in page order. A replay step is not
    ``live``: it shows no host console."""
    sink: list[tuple[str, str]] = []
    _panels().render(
        {
            "match": match,
            "view": view,
            "game_view": view["game"],
            "version": version,
            "oob": oob,
            "live": live,
            "panels_template": panels_template(match),
            PANEL_SINK: sink,
        },
    )
    return sink


@lru_cache(maxsize=1)
def _panels() -> Any:
    """core/_panels.html, a Jinja2 template (games/core/render/jinja.py): compiled once."""
    return engines["jinja2"].env.get_template("core/_panels.html")


def render_panels(
    match: Match, view: dict[str, Any], *, version: int, oob: bool, live: bool = True
) -> str:
    """The panels as one HTML string (a page, a replay step)."""
    panels = render_panel_list(match, view, version=version, oob=oob, live=live)
    return mark_safe("\n".join(html for _, html in panels))  # rendered by our own templates


def server_time_ms() -> int:
    return int(time.time() * 1000)


def _panel_entries(
    match: Match,
    view: dict[str, Any],
    version: int,
    before: dict[str, str] | None = None,
    patches: dict[tuple[str, str], list[Any]] | None = None,
    sent: bool = False,
) -> tuple[tuple[Panel, ...], dict[str, str]]:
    """The panels of ``view`` and their HTML by id; ``before`` (the viewer's panels at the
    version before, by id; ``sent``: as they were sent) gives each changed panel a patch.
    ``patches`` keeps the patches worked out for other audiences: the same two HTML texts give
    the same patch."""
    rendered = dict(render_panel_list(match, view, version=version, oob=True))
    return panels_of(rendered, before, patches, sent), rendered


def _facts(view: dict[str, Any], notice: str | None) -> str:
    """What a viewer's panels are drawn from besides its game view and the version, as text:
    the match facts, its drafts and the host's notice; "" when that cannot be told (the notice
    was not read, a value JSON cannot say)."""
    if notice is None:
        return ""
    try:
        return dumps([view["match"], view.get("draft"), view.get("drafts"), notice])
    except (TypeError, ValueError):
        return ""


_VERSION_PANEL = "match-version"
_VERSION_ATTRIBUTE = re.compile(r'data-version="\d+"')


def _moved_on(held: dict[str, str], version: int) -> dict[str, str]:
    """``held`` (a viewer's panels at the version before) at ``version``: only the version
    panel says the version (templates/core/_panels.html); every other panel is drawn from the
    viewer's view, its notice and the match facts alone, which did not change."""
    moved = dict(held)
    moved[_VERSION_PANEL] = _VERSION_ATTRIBUTE.sub(
        f'data-version="{version}"', held[_VERSION_PANEL], count=1
    )
    return moved


def _check_drawing(match: Match, view: dict[str, Any], version: int, moved: dict[str, str]) -> None:
    """With PANEL_MEMO_CHECK (the tests): panels moved to ``version`` are exactly a drawing."""
    drawn = dict(render_panel_list(match, view, version=version, oob=True))
    if drawn != moved:
        changed = sorted(k for k in drawn.keys() | moved.keys() if drawn.get(k) != moved.get(k))
        raise AssertionError(f"panels moved to v{version} differ from a drawing: {changed}")


def _panels_before(
    match: Match, viewer: Viewer, version: int, state: State, read: dict[int, Any] | None = None
) -> dict[str, str] | None:
    """The viewer's panels at ``version`` (the version before an event): kept, or drawn again
    from ``state``; None when there is no state before (the match's first event)."""
    kept = panelcache.kept(match, version, viewer, read)
    if kept is not None:
        return kept.panels
    if not state:
        return None
    view = view_of(match, viewer, state)
    panels = render_panel_list(match, view, version=version, oob=True)
    return dict(panels)


@dataclass(frozen=True)
class Announcement:
    """An event to tell its viewers, with the match's state either side of it: frames are drawn
    from these, never from what the event row stores."""

    match: Match
    event: Event
    before: State
    after: State

    @classmethod
    def stored(cls, match: Match, event: Event) -> Announcement:
        """An event read back from the database (a resync, a heal): its states rebuilt."""
        before = state_at(match, event.version - 1)
        return cls(match, event, before, state_at(match, event.version))


def sent_view(match: Match, view: dict[str, Any]) -> dict[str, Any]:
    """``view`` as clients get it: without the parts only the page's templates draw."""
    return jsondiff.as_sent(view, match.game.page_only)


def _game_view(match: Match, viewer: Viewer, state: State) -> Any:
    """The game's view of ``state`` for ``viewer`` as sent (the base of a patch); None for no
    state. Kept as the game made it (tuples, whole-number keys): the patch says it as JSON."""
    if not state:
        return None
    shown = match.game.view(state, viewer)
    return jsondiff.without(shown, match.game.page_only) if shown else shown


def view_patch(
    before: Any, after: dict[str, Any], event: dict[str, Any] | None
) -> list[jsondiff.Op]:
    """The patch from the game view ``before`` (None: the viewer holds none) to the whole view
    ``after``. The match facts and the drafts are small and change apart from the game's
    state: they are set whole; the game's view is diffed."""
    if before is None:
        ops = [["s", ["game"], after["game"]]]
    else:
        ops = jsondiff.diff(before, after["game"], ("game",))
    ops = jsondiff.refer_to_event(ops, event)
    ops.append(["s", ["match"], after["match"]])
    ops.extend(["s", [key], after[key]] for key in ("draft", "drafts") if key in after)
    return ops


def full_frame(match: Match, viewer: Viewer, *, with_html: bool = True) -> Frame:
    """The whole view of the match as it is now, every panel with it: a first frame or a
    resync that cannot be patched."""
    view = view_of(match, viewer)
    head: dict[str, Any] = {"type": "full", "version": match.version}
    head["view"] = sent_view(match, view)
    head["server_time"] = server_time_ms()
    panels: tuple[Panel, ...] = ()
    if with_html:
        panels, rendered = _panel_entries(match, view, match.version)
        notice = _notice_drawn(match)
        sent = Sent(rendered, head["view"]["game"], notice)
        panelcache.keep(match, match.version, {viewer: sent}, first=True)
        head["panel_ids"] = [panel.id for panel in panels]
    return Frame(
        version=match.version,
        head=dumps(head),
        panels=panels,
        full=True,
        audience=viewer.audience,
        holders=seat_holders(match),
    )


def update_frames(
    announcement: Announcement, viewers: list[Viewer] | None = None, *, with_html: bool = True
) -> list[tuple[Viewer, Frame]]:
    """The update frame of ``announcement`` for each viewer (every audience by default): the
    event as that viewer may see it, the patch of that viewer's view and the panels (a
    connection sends only those that changed)."""
    return list(frames_drawn(announcement, viewers, with_html=with_html))


def frames_drawn(
    announcement: Announcement,
    viewers: list[Viewer] | None = None,
    *,
    with_html: bool = True,
    keeping: Keeping | None = None,
    next_movers: Sequence[int] = (),
    unwatched: frozenset[str] = frozenset(),
) -> Iterator[tuple[Viewer, Frame]]:
    """``update_frames`` one viewer at a time, each frame as soon as it is drawn, so that it can
    be sent before the next is drawn, in the order of ``audiences`` (``next_movers``: the seats
    whose moves make the versions drawn next, drawn first after the acting seat; ``unwatched``:
    the audiences no socket listens to, not drawn). What each audience was sent is kept once
    the last is drawn, or left in ``keeping`` for the caller to write (each audience as it is
    drawn: the caller may write those drawn so far)."""
    match, event = announcement.match, announcement.event
    patches: dict[tuple[str, str], list[Any]] = {}  # panel diffs shared by audiences
    read: dict[int, Any] = {}  # the shared cache's record of the version before, read once
    sent: dict[Viewer, Sent] = {}
    holders = seat_holders(match)
    seats = list(match.seats.all())
    unkept = False
    if keeping is not None and viewers is None:
        keeping.match, keeping.version, keeping.sent = match, event.version, sent
    for viewer in audiences(match, event.seat, next_movers) if viewers is None else viewers:
        if viewer.audience in unwatched:
            continue
        kept = (
            panelcache.kept(match, event.version - 1, viewer, read) if announcement.before else None
        )
        if kept is None and announcement.before and viewers is None and not unkept:
            # Drawn again from the state before: the worker that drew that version has not
            # kept it yet (both workers drawing at once) or the cache lost it.
            unkept = True
            log.info("match %s v%s: v%s not kept", match.pk, event.version, event.version - 1)
        # What this worker last drew for the audience, when the version before is not kept
        # with its views (the other worker drew it): the same gate's answer pages alike.
        drawn = kept if kept is not None and kept.whole is not None else None
        if drawn is None and announcement.before:
            drawn = panelcache.latest(match, viewer, before=event.version)
        gated, whole = _gated_and_paged(match, match.game.seen(announcement.after, viewer), drawn)
        view = view_of(match, viewer, announcement.after, game_view=whole, seats=seats)
        after = sent_view(match, view)
        # A replaced sealed move is its seat's and the host's to know (``Event.kept_from``):
        # anyone else's version passes without the event, as their export reads it.
        seen = None if event.kept_from(viewer) else event.seen_by(viewer)
        # The gate's answer to the viewer at the version before, where it is needed: for the
        # base of the patch (not kept), and for a seat's move, to tell who saw nothing change.
        answered = None
        if announcement.before and (
            kept is None
            or kept.game is None
            or (with_html and event.seat is not None and not viewer.is_host)
        ):
            answered = kept.gated if kept is not None and kept.gated is not None else None
            if answered is None:
                answered = match.game.seen(announcement.before, viewer)
        if kept is not None and kept.game is not None:
            before = kept.game
        elif answered is not None and _same(answered, gated):
            before = after["game"]  # the same answer, the same view: nothing of it changed
        else:
            before = _game_view(match, viewer, announcement.before)
        head: dict[str, Any] = {
            "type": "update",
            "version": event.version,
            "event": seen,
            "patch": view_patch(before, after, seen),
            "server_time": server_time_ms(),
        }
        panels: tuple[Panel, ...] = ()
        if with_html:
            _know_notice(announcement, kept)
            known = _notice_drawn(match)
            facts_known = _facts(view, known)
            panels, rendered = _drawn_panels(
                announcement, viewer, view, gated, answered, kept, read, patches, facts_known
            )
            # Drawing the panels may have read the host's words (host_notice): the facts then.
            notice = _notice_drawn(match)
            if viewer.is_host:
                facts = ""
            else:
                facts = facts_known if notice == known else _facts(view, notice)
            sent[viewer] = Sent(rendered, after["game"], notice, facts, view["game"], gated)
            if viewers is None:
                panelcache.remember(match, event.version, viewer, sent[viewer])
            # Every panel the viewer's page should hold now: one no longer here goes away.
            head["panel_ids"] = [panel.id for panel in panels]
        frame = Frame(event.version, dumps(head), panels, False, viewer.audience, holders)
        yield viewer, frame
    if sent and (keeping is None or viewers is not None):  # else the caller writes ``keeping``
        # A connection catching up draws its own audience alone: it adds to nothing kept.
        panelcache.keep(match, event.version, sent, first=viewers is not None)


def _same(before: Any, after: Any) -> bool:
    """Whether two views are alike, as jsondiff.diff compares them."""
    return type(before) is type(after) and before == after


def _gated_and_paged(
    match: Match, gated: dict[str, Any], kept: Sent | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The gate's answer ``gated`` as it came, and the game's view made from it: the one kept
    when the gate answered the viewer the same at the version before (the page is drawn from
    that answer alone; after another seat's move, most viewers'), else paged now. A page adds
    to the answer it is given: it is given a copy of the answer's top, so the answer is kept as
    it came (a page that changed something inside it would only make the next answer differ
    from this one: drawn again, never wrongly left as it was)."""
    if kept is not None and kept.whole is not None and _same(kept.gated, gated):
        return gated, kept.whole
    return gated, match.game.paged(dict(gated) if type(gated) is dict else gated)


def _drawn_panels(
    announcement: Announcement,
    viewer: Viewer,
    view: dict[str, Any],
    gated: dict[str, Any],
    answered: Any,
    kept: Sent | None,
    read: dict[int, Any],
    patches: dict[tuple[str, str], list[Any]],
    facts: str,
) -> tuple[tuple[Panel, ...], dict[str, str]]:
    """``viewer``'s panels at the event's version and their HTML by id, each changed one with
    its patch from what the viewer held. ``facts``: ``_facts`` of ``view`` with the host's
    words as known now.

    A seat's move that left another viewer's whole game view as it was (the parts only the
    page draws too) and the rest its panels are drawn from (``_facts``: in a race, twelve of
    fifteen audiences) draws nothing for it: its panels are the ones it held, at the new
    version. When what it held was drawn by another worker and is not kept yet, they are
    drawn once, not twice. The host's panels (the host console reads the whole match) and every
    audience's after a host's operation are always drawn. ``answered``: the gate's answer to
    ``viewer`` at the version before (None: not asked; always asked after a seat's move)."""
    match, event = announcement.match, announcement.event
    version = event.version
    quiet = False
    before = None
    if event.seat is not None and not viewer.is_host and announcement.before:
        # The page is drawn from the gate's answer alone: the same answer, the same view.
        before = answered
        quiet = _same(before, gated)
    same_facts = kept is not None and kept.facts == facts
    if quiet and kept is not None and kept.facts and same_facts:
        rendered = _moved_on(kept.panels, version)
        if settings.PANEL_MEMO_CHECK:
            _check_drawing(match, view, version, rendered)
        return panels_of(rendered, kept.panels, patches, sent=True), rendered
    held = kept.panels if kept is not None else None
    if held is None and quiet and (drawn := _drawn_before(match, viewer, version, view, gated)):
        # Drawn by this worker at an earlier version from the same gate's answer and facts:
        # the same panels, and those the other worker sent for the versions between (the
        # same answer, drawn alike). Were they not (the view changed and changed back), a
        # connection that holds others draws this frame whole itself (Frame.lacks).
        rendered, held = _moved_on(drawn.panels, version), _moved_on(drawn.panels, version - 1)
        if settings.PANEL_MEMO_CHECK:
            _check_drawing(match, view, version, rendered)
        return panels_of(rendered, held, patches, sent=True), rendered
    if held is None and quiet:
        # The panels before would be drawn from the same view (the match facts and the notice
        # are read as they are now either way): draw them once.
        rendered = dict(render_panel_list(match, view, version=version, oob=True))
        held = _moved_on(rendered, version - 1)
        if settings.PANEL_MEMO_CHECK:
            before = view_of(match, viewer, announcement.before)
            _check_drawing(match, before, version - 1, held)
        return panels_of(rendered, held, patches), rendered
    if (
        held is None
        and viewer.seat is not None
        and before is not None
        and (drawn := _drawn_before(match, viewer, version, view, before))
    ):
        # A seat's own move (its panels changed): what it held before is what this worker
        # last drew for it (its player's sockets are here), if drawn from the gate's answer of
        # the version before. Compared with it, not drawn again (a connection that holds
        # other panels draws this frame whole itself: Frame.lacks).
        held = _moved_on(drawn.panels, version - 1)
        return _panel_entries(match, view, version, held, patches, sent=True)
    if held is None:
        # Drawn again from the state before (with the match as it is now: a panel drawn from
        # the match itself, as the fair-play panel is, may differ from what was sent then).
        held = _panels_before(match, viewer, version - 1, announcement.before, read)
        return _panel_entries(match, view, version, held, patches)
    return _panel_entries(match, view, version, held, patches, sent=True)


def _drawn_before(
    match: Match, viewer: Viewer, version: int, view: dict[str, Any], gated: dict[str, Any]
) -> Sent | None:
    """What this worker last drew for ``viewer``'s audience before ``version``, if it was drawn
    from the gate's answer ``gated`` and the facts ``view`` and the host's notice make now (the
    notice read once per version, as drawing would)."""
    from games.core.templatetags.arena import host_notice

    drawn = panelcache.latest(match, viewer, before=version)
    if drawn is None or not drawn.facts or drawn.gated is None or not _same(drawn.gated, gated):
        return None
    return drawn if drawn.facts == _facts(view, host_notice(match)) else None


def _know_notice(announcement: Announcement, kept: Sent | None) -> None:
    """Tell the host notice of the panels (arena's host_notice) the host's latest words without
    asking the database, when they are known: this event's own, none once the game moved on
    (audit.moves_on), the version before's, or none when the host never operated on the match."""
    from games.core.host import audit

    match, event = announcement.match, announcement.event
    known = getattr(match, "_host_notice", None)
    if event.version != match.version or (known is not None and known[0] == match.version):
        return
    if audit.is_host_operation(event):
        words = audit.host_words(match, event)
    elif audit.moves_on(announcement.before, announcement.after):
        words = ""
    elif kept is not None and kept.notice is not None:
        words = kept.notice
    elif getattr(match, "host_has_spoken", None) is False:
        words = ""  # the lock read that no host operation was ever made (Match.objects.locked)
    else:
        return
    match._host_notice = (match.version, words)


def _notice_drawn(match: Match) -> str | None:
    """The host's latest words as the panels just drawn showed them (None: not read)."""
    known = getattr(match, "_host_notice", None)
    return known[1] if known is not None and known[0] == match.version else None


def audiences(
    match: Match, acting: int | None = None, next_movers: Sequence[int] = ()
) -> list[Viewer]:
    """Every distinct kind of viewer of a match, in the order their frames are drawn and sent:
    the ``acting`` seat (the one whose move it is, if any: its player sees the move at once),
    each other seat (a seat's socket takes a version only after the one before, so the next
    mover's own frame waits for these; after another seat's move they are mostly drawn from
    nothing), those of ``next_movers`` first (the seats whose moves make the versions drawn
    next: their own frames wait for this one), then the spectators (the many: one message a
    worker, handed to each) and the host."""
    indexes = [seat.index for seat in match.seats.all()]
    rank = {seat: place for place, seat in reversed(list(enumerate(next_movers)))}
    others = sorted((i for i in indexes if i != acting), key=lambda i: rank.get(i, len(rank)))
    first = [acting] if acting in indexes else []
    return [*(Viewer(seat=i) for i in [*first, *others]), Viewer.spectator(), Viewer.host()]
