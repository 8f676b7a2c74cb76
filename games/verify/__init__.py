"""The independent verifier: checks a finished match's export (``python -m games.verify``).

Pure: the standard library and the games' own rules (engines and flows), no Django and no
database, so anyone with the code can run it on an export they downloaded. It checks, in order:

1. the server seed against the commitment every viewer was shown from the start;
2. the match seed the draws came from against the server seed, the match and the players' seeds
   (every draw is made from it: replaying the match from it checks every board and pick);
3. every revealed receipt against its move and nonce, and that move against the one played (a
   draft's receipt, against the move the clock made of the draft it sealed);
4. every event, by playing the rules again from the seeds and the moves: its kind and public
   outcome, and at the end the result.

It stops at the first disagreement and names it, and lists every host intervention (a pause, a
clock change, an award, a corrected result), so that "the result stands as played" and "the host
awarded round 4" can be told apart. docs/fairness.md says all of it in players' words.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from games.core.game import fairness
from games.core.game.gamedef import GameDefinition, State
from games.core.game.registry import UnknownGame, get_game
from games.core.match.moves import Move, play

HOST_RULES = {"shift", "end_round", "adjudicate", "abort", "correct", "seated"}
HOST_KINDS = {"paused", "seat_replaced", "result_corrected"}
COMPARED_RULES = {"start", "act", "timeout", "end_round", "adjudicate", "analysis"}


class Disagreement(Exception):
    """What the export says and what checking it gives differ."""


@dataclass
class Report:
    checked: list[str] = field(default_factory=list)
    interventions: list[str] = field(default_factory=list)
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def lines(self) -> list[str]:
        out = [f"ok   {line}" for line in self.checked]
        if self.problem:
            out.append(f"FAIL {self.problem}")
        if self.interventions:
            out.append("Host interventions:")
            out.extend(f"  {line}" for line in self.interventions)
        else:
            out.append("Host interventions: none; the result stands as played.")
        out.append("All checks pass." if self.ok else "The match does NOT check out.")
        return out


def load_games() -> None:
    """Register every game of this code (each ``games/<app>/game.py``), without Django."""
    import games

    for module in pkgutil.iter_modules(games.__path__):
        if module.ispkg and (Path(games.__path__[0]) / module.name / "game.py").exists():
            importlib.import_module(f"games.{module.name}.game")


def verify(export: Mapping[str, Any]) -> Report:
    """Check ``export`` (the parsed export.json of a finished match)."""
    report = Report()
    try:
        _verify(export, report)
    except Disagreement as problem:
        report.problem = str(problem)
    return report


def _verify(export: Mapping[str, Any], report: Report) -> None:
    facts = export.get("fairness") or {}
    record = export.get("verify")
    if not facts.get("commitment"):
        raise Disagreement("this match was made before seeds were committed: nothing to check")
    if not isinstance(record, Mapping) or "server_seed" not in facts:
        raise Disagreement("this export has no verification record: is the match over?")
    load_games()
    try:
        game = get_game(record["game"])
    except UnknownGame:
        raise Disagreement(f"this code has no game {record['game']!r}") from None
    match_id, server_seed = record["match_id"], facts["server_seed"]
    names = {int(k): v for k, v in (facts.get("names") or {}).items()}

    if fairness.commitment(match_id, server_seed) != facts["commitment"]:
        raise Disagreement(
            f"the server seed {fairness.short(server_seed)}… is not the one committed to "
            f"({fairness.short(facts['commitment'])}…): the seed was changed"
        )
    report.checked.append(
        f"the server seed {fairness.short(server_seed)}… matches the commitment "
        f"{fairness.short(facts['commitment'])}… shown from the start"
    )

    events = list(record["events"])
    start = next((e for e in events if e["rule"] == "start"), None)
    seed: str | None = None
    if start is not None:
        seats = [seat["index"] for seat in start["inputs"]["seats"]]
        players = fairness.players_text(facts.get("players", {}), seats)
        seed = fairness.match_seed(server_seed, match_id, players)
        if start["inputs"].get("seed") != seed:
            raise Disagreement(
                f"v{start['version']} {start['kind']}: the match was started from another seed "
                "than its server seed, its id and its players' seeds give"
            )
        given = facts.get("players", {})
        shown = ", ".join(f"{_who(names, i)} {given.get(str(i)) or '(none)'}" for i in seats)
        report.checked.append(
            f"every draw comes from the server seed and the players' seeds ({shown})"
        )

    withheld = set(record.get("withheld") or ())
    moves, drafts = _receipts(game, events, facts, names, report, withheld)
    result = _replay(game, events, seed, moves, drafts, names, report)
    recorded = record.get("result")
    if any(e.get("withheld") for e in events):
        report.checked.append(
            "the result was not replayed: the host's export of this match replays it"
        )
    elif any(e["rule"] == "correct" for e in events):
        report.checked.append("the result stands as the host corrected it (listed below)")
    elif recorded is not None and result is not None:
        for key, value in result.items():
            if recorded.get(key) != value:
                raise Disagreement(
                    f"the result's {key!r} is recorded as {_brief(recorded.get(key))}; the "
                    f"rules give {_brief(value)}"
                )
        report.checked.append("the result is the one the rules give")


def _who(names: Mapping[int, str], seat: int | None) -> str:
    return names.get(seat, f"seat {seat + 1}") if seat is not None else "no one"


def _receipts(
    game: GameDefinition,
    events: list[dict[str, Any]],
    facts: Mapping[str, Any],
    names: Mapping[int, str],
    report: Report,
    withheld: set[str] = frozenset(),  # type: ignore[assignment]
) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]]]:
    """Check every receipt; the move to replay at each replaced sealed move's version (its
    seat's final move of that kind, the one its later receipts reveal), and the revealed
    receipts of drafts, each checked against the move a clock made of its draft as the match is
    replayed. A receipt of a type the rules keep secret for good (``withheld``) stays sealed:
    its seat's page checks it."""
    receipts = sorted(facts.get("receipts", []), key=lambda e: e["version"])
    by_version = {e["version"]: e for e in events}
    for entry in receipts:
        event = by_version.get(entry["version"])
        who = _receipt_name(entry, names)
        if entry["state"] == "revealed":
            if fairness.receipt(entry["move"], entry["nonce"]) != entry["receipt"]:
                raise Disagreement(f"the receipt of {who} does not match its revealed move")
            if entry.get("draft"):
                continue  # checked against the move a clock made of the draft: _replay
            if event is None or event.get("action") != entry["move"]:
                raise Disagreement(
                    f"{who}: the move played is not the one its receipt "
                    f"{fairness.short(entry['receipt'])}… sealed"
                )
        elif entry["state"] == "sealed" and entry["type"] not in withheld:
            raise Disagreement(f"the receipt of {who} was never revealed")
    with_receipt = {e["version"] for e in receipts}
    for event in events:
        action = event.get("action") or {}
        sealed = event["rule"] == "act" and action.get("type") in game.sealed_actions
        if sealed and event["version"] not in with_receipt and not event.get("withheld"):
            raise Disagreement(
                f"v{event['version']}: {_who(names, event['seat'])}'s sealed "
                f"{action['type']} has no receipt"
            )
    revealed = sum(1 for e in receipts if e["state"] == "revealed")
    replaced = sum(1 for e in receipts if e["state"] == "replaced")
    kept = sum(1 for e in receipts if e["state"] == "sealed")
    drafts = [e for e in receipts if e["state"] == "revealed" and e.get("draft")]
    if receipts:
        also = f" ({replaced} replaced by a later one, sealed for good)" if replaced else ""
        report.checked.append(f"all {revealed} revealed receipts match their moves{also}")
    if kept:
        kinds = ", ".join(sorted(withheld))
        report.checked.append(
            f"{kept} receipts stay sealed: the rules keep those moves ({kinds}) secret for "
            "good; each player's page checks its own"
        )
    finals: dict[int, dict[str, Any]] = {}
    for index, entry in enumerate(receipts):
        if entry["state"] != "replaced" or entry.get("draft"):  # a draft is no event's move
            continue
        later = next(
            (
                e
                for e in receipts[index + 1 :]
                if e["seat"] == entry["seat"]
                and e["type"] == entry["type"]
                and e["state"] == "revealed"
                and not e.get("draft")
            ),
            None,
        )
        if later is not None:
            finals[entry["version"]] = later["move"]
    return finals, drafts


def _receipt_name(entry: Mapping[str, Any], names: Mapping[int, str]) -> str:
    """ "Ada's pick (v12)", "Ada's draft pick (v9)"."""
    draft = "draft " if entry.get("draft") else ""
    return f"{_who(names, entry['seat'])}'s {draft}{entry['type']} (v{entry['version']})"


def _check_drafts_sealed(
    game: GameDefinition,
    state: State,
    event: Mapping[str, Any],
    drafts: list[dict[str, Any]],
    opened: set[int],
    names: Mapping[int, str],
) -> None:
    """Each draft the clock of ``event`` sealed (``state``: the state before it) against the
    receipt it was given when it was kept: the move the rules make of the draft is the one the
    receipt sealed. ``opened``: the versions of the draft receipts checked so far."""
    where = f"v{event['version']} {event['kind']}"
    for key, draft in sorted((event.get("inputs") or {}).get("drafts", {}).items()):
        seat = int(key)
        entry = next(
            (
                e
                for e in reversed(drafts)
                if e["seat"] == seat
                and e["version"] < event["version"]
                and e["version"] not in opened
            ),
            None,
        )
        who = f"{_who(names, seat)}'s draft"
        if entry is None:
            raise Disagreement(f"{where}: {who}, sealed by the clock, has no receipt")
        opened.add(entry["version"])
        made = game.draft_move(state, seat, draft)
        if made != entry["move"]:
            raise Disagreement(
                f"{where}: the move the clock made of {who} is not the one its receipt "
                f"{fairness.short(entry['receipt'])}… (v{entry['version']}) sealed"
            )


def _replay(
    game: GameDefinition,
    events: list[dict[str, Any]],
    seed: str | None,
    finals: Mapping[int, dict[str, Any]],
    drafts: list[dict[str, Any]],
    names: Mapping[int, str],
    report: Report,
) -> dict[str, Any] | None:
    """Play every event again; the result the rules gave (None: the match did not end by them).
    A draft a clock sealed is checked against its receipt (``drafts``: the revealed ones)."""
    state: State = {}
    played = 0
    opened: set[int] = set()
    result: dict[str, Any] | None = None
    for index, event in enumerate(events):
        where = f"v{event['version']} {event['kind']}"
        if event.get("withheld"):
            for later in events[index:]:
                if _is_intervention(later):
                    reason = (later.get("public") or {}).get("host_reason")
                    place = f"v{later['version']} {later['kind']}"
                    report.interventions.append(place + (f": {reason}" if reason else ""))
            report.checked.append(
                f"{played} events replayed with the open rules give what was shown; from {where} "
                f"on ({len(events) - index} events) the moves are the players' secrets, which "
                "the rules keep for good: the host's export replays them"
            )
            return None
        if _is_intervention(event):
            reason = (event.get("public") or {}).get("host_reason")
            report.interventions.append(f"{where}" + (f": {reason}" if reason else ""))
        if "state" in event:  # an outcome no move makes again (a correction): as it was kept
            state = event["state"]
            continue
        inputs = dict(event.get("inputs") or {})
        if event["rule"] == "start" and seed is not None:
            inputs["seed"] = seed
        if event["rule"] == "timeout":
            _check_drafts_sealed(game, state, event, drafts, opened, names)
        action = event.get("action")
        if event.get("replaced"):
            action = finals.get(event["version"])
            if action is None:
                raise Disagreement(f"{where}: a replaced sealed move with no later move revealed")
        move = Move(
            event["rule"],
            datetime.fromisoformat(event["at"]),
            seat=event.get("seat"),
            action=action,
            inputs=inputs,
        )
        try:
            outcome = play(game, state, move)
        except ValueError as error:
            raise Disagreement(f"{where}: the rules refuse this move ({error})") from None
        if event["rule"] in COMPARED_RULES:
            _compare(where, event, outcome.kind, outcome.public, names)
        state = outcome.state
        result = outcome.result if outcome.result is not None else result
        played += 1
    if unplayed := [e for e in drafts if e["version"] not in opened]:
        raise Disagreement(
            f"the receipt of {_receipt_name(unplayed[0], names)} was revealed, but no clock "
            "sealed that draft"
        )
    report.checked.append(f"all {played} events replayed with the open rules give what was shown")
    if drafts:
        report.checked.append(
            f"{len(drafts)} drafts sealed by a clock: each is the move its receipt sealed when "
            "the draft was kept"
        )
    return result


def _compare(
    where: str,
    event: Mapping[str, Any],
    kind: str,
    public: Mapping[str, Any],
    names: Mapping[int, str],
) -> None:
    """The replayed outcome against the recorded one: the same kind (a player's move) and every
    public fact the rules give (the host may add its reason)."""
    if event["rule"] in {"act", "timeout", "start"} and kind != event["kind"]:
        raise Disagreement(f"{where}: the rules give {kind!r}, the record says {event['kind']!r}")
    recorded = event.get("public") or {}
    for key, value in public.items():
        if recorded.get(key) != value:
            raise Disagreement(
                f"{where}: its {key!r} was recorded as {_brief(recorded.get(key))}; the rules "
                f"give {_brief(value)}"
            )


def _brief(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_intervention(event: Mapping[str, Any]) -> bool:
    public = event.get("public") or {}
    return (
        event["rule"] in HOST_RULES
        or event["kind"] in HOST_KINDS
        or "host_reason" in public
        or ("state" in event and event["rule"] != "snapshot")
    )
