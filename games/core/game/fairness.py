"""Provably fair matches: the seeds every draw comes from, and receipts for sealed moves.

Pure: the standard library only, so that the verifier (games/verify) runs it without Django.
docs/fairness.md says all of it in players' words.

- The **server seed** is 32 random bytes (hex), drawn when the match is made. Its
  **commitment**, ``sha256("gem-arena/v1/commitment|<match id>|<server seed>")``, is shown to
  every viewer from the first page; the seed itself only once the match is over.
- Each seated player's page contributes a **player seed** (up to 64 letters, digits, ``-`` or
  ``_``) as it takes its seat; a seat that sends none (a bot, a player seated by the host) plays
  with the empty seed. The players' seeds are public as soon as they are given.
- Every draw is ``HMAC-SHA256(key=server seed, "<match id>|<players>|<purpose>")``, its first
  8 bytes as a number, where ``<players>`` lists every seat's seed (``0=ab12,1=,2=ff``) and
  ``<purpose>`` names the draw and its counter (``board``, ``refill:3``, ``draw:7``). A flow
  holds all of it as one text, its match seed (``fair1|<server seed>|<match id>|<players>``),
  and asks games.core.game.flowkit.derived_seed, which is the one entry point for every draw.
- A **receipt** of a sealed move is ``sha256("gem-arena/v1/receipt|<move>|<nonce>")``, where
  ``<move>`` is the action as sent, as canonical JSON (keys sorted, no spaces), and the nonce is
  the page's own random text; the move and its nonce are published at the move's reveal.
- A **draft** a clock may seal as its seat's move (the death match's ticked picks) gets a receipt
  too, when it is kept: of the move the clock would make of it. At the clock, the move it made of
  the draft it found is published with that receipt's nonce, so a draft changed after its
  receipt gives a move that is not the receipt's; a draft that is replaced, cleared or overtaken
  by the seat's own move is never played, and its receipt is marked replaced.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

DOMAIN = "gem-arena/v1"
SEED_TEXT = "fair1"
"""The first field of a fair match seed; a match seed that is a number is an older match's,
whose draws were ``sha256("<seed>:<purpose>")`` (kept so that old matches replay the same)."""

PLAYER_SEED = re.compile(r"[0-9A-Za-z_-]{0,64}")
NONCE = re.compile(r"[0-9a-f]{16,64}")
HEX64 = re.compile(r"[0-9a-f]{64}")
SEAL_FIELDS = ("nonce", "receipt")
"""What a page adds to a sealed move's action: not part of the move (the rules never see it)."""


def new_server_seed() -> str:
    return secrets.token_hex(32)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def commitment(match_id: str, server_seed: str) -> str:
    """What every viewer is shown before anyone joins: the server seed, sealed."""
    return sha256_text(f"{DOMAIN}/commitment|{match_id}|{server_seed}")


def clean_player_seed(value: object) -> str:
    """A player's seed as kept, or ValueError: up to 64 letters, digits, ``-`` or ``_``."""
    text = value.strip() if isinstance(value, str) else None
    if text is None or not PLAYER_SEED.fullmatch(text):
        raise ValueError("a player's seed is up to 64 letters, digits, - or _")
    return text


def players_text(player_seeds: Mapping[str, str], seats: Iterable[int]) -> str:
    """Every seat's seed, in seat order, as the draws read them: ``0=ab12,1=,2=ff``."""
    return ",".join(f"{index}={player_seeds.get(str(index), '')}" for index in sorted(seats))


def match_seed(server_seed: str, match_id: str, players: str) -> str:
    """The text a flow keeps as its match seed: everything the draws are made from."""
    return f"{SEED_TEXT}|{server_seed}|{match_id}|{players}"


def is_fair_seed(seed: object) -> bool:
    return isinstance(seed, str) and seed.startswith(SEED_TEXT + "|")


def draw_value(seed: int | str, labels: tuple[object, ...]) -> int:
    """The number one draw is made from (flowkit.derived_seed): for a fair seed, the first 8
    bytes of ``HMAC-SHA256(server seed, "<match id>|<players>|<purpose>")``; for an older
    match's numeric seed, the first 8 bytes of ``sha256("<seed>:<purpose>")``."""
    purpose = ":".join(str(part) for part in labels)
    if isinstance(seed, str) and seed.startswith(SEED_TEXT + "|"):
        _, key, mixed = seed.split("|", 2)
        message = f"{mixed}|{purpose}".encode()
        digest = hmac.new(bytes.fromhex(key), message, hashlib.sha256).digest()
    else:
        text = f"{seed}:{purpose}" if labels else str(seed)
        digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:8], "big")


# --- receipts of sealed moves ---------------------------------------------------------------------


def canonical(move: Mapping[str, Any]) -> str:
    """A move as its receipt reads it: JSON with sorted keys and no spaces (static/js/fairness.js
    writes the same text)."""
    return json.dumps(move, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def receipt(move: Mapping[str, Any], nonce: str) -> str:
    return sha256_text(f"{DOMAIN}/receipt|{canonical(move)}|{nonce}")


def new_nonce() -> str:
    return secrets.token_hex(16)


def split_seal(action: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str] | None]:
    """The move without what the page added to seal it, and the seal (nonce and receipt) when
    one came; ValueError for a malformed one or a receipt that is not the move's."""
    move, seal = without_seal(action)
    if seal is not None:
        check_seal(move, seal)
    return move, seal


def without_seal(sent: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str] | None]:
    """What a page sent (a move, or a draft with the seal of the move it would become) without
    its seal, and the seal when one came; ValueError for a malformed one."""
    rest = {key: value for key, value in sent.items() if key not in SEAL_FIELDS}
    if not any(key in sent for key in SEAL_FIELDS):
        return rest, None
    nonce, given = sent.get("nonce"), sent.get("receipt")
    if not isinstance(nonce, str) or not NONCE.fullmatch(nonce):
        raise ValueError("a sealed move's nonce is 16 to 64 lowercase hex digits")
    if not isinstance(given, str) or not HEX64.fullmatch(given):
        raise ValueError("a sealed move's receipt is 64 lowercase hex digits")
    return rest, {"nonce": nonce, "receipt": given}


def check_seal(move: Mapping[str, Any], seal: Mapping[str, str]) -> None:
    """ValueError unless ``seal`` is ``move``'s."""
    if receipt(move, seal["nonce"]) != seal["receipt"]:
        raise ValueError("the receipt is not this move's: nothing was sent")


def short(digest: str) -> str:
    """How a page names a receipt or a seed: its first 8 hex digits."""
    return digest[:8]


# --- the fairness record: what a match keeps (Match.fairness), and what every viewer sees -------
# A record is plain JSON: {"players": {seat: seed}, "receipts": [entry, ...]}, each entry
# {"seat", "type", "version", "receipt", "by" ("page" or "server"), "state" ("sealed",
# "revealed" or "replaced"), "move", "nonce"}; the move and nonce are secret while sealed. A
# draft's receipt also has "draft": true (and "played": true once a clock made its move).

Record = dict[str, Any]


def with_player_seed(record: Mapping[str, Any], seat: int, seed: str) -> Record:
    """``record`` with ``seat``'s seed (kept only before the start: the services check)."""
    players = {**record.get("players", {}), str(seat): seed}
    return {**record, "players": players}


def with_receipt(
    record: Mapping[str, Any],
    *,
    seat: int,
    kind: str,
    version: int,
    move: Mapping[str, Any],
    seal: Mapping[str, str] | None,
    replaced: bool,
) -> Record:
    """``record`` with the receipt of ``seat``'s sealed move (``kind``: its action type) made
    at ``version``: the page's seal, or one the server makes (a bot's move, a page that sent
    none). A move that replaces the seat's sealed move of that kind marks the older receipt
    replaced: its move and nonce are never shown."""
    by = "page" if seal else "server"
    nonce = seal["nonce"] if seal else new_nonce()
    receipts = [dict(entry) for entry in record.get("receipts", [])]
    for entry in receipts:
        mine = entry["seat"] == seat and entry["type"] == kind and entry["state"] == "sealed"
        if mine and (replaced or entry.get("draft")):  # a draft: the seat sent its move itself
            entry["state"] = "replaced"
    receipts.append(
        {
            "seat": seat,
            "type": kind,
            "version": version,
            "receipt": receipt(move, nonce),
            "by": by,
            "state": "sealed",
            "move": dict(move),
            "nonce": nonce,
        }
    )
    return {**record, "receipts": receipts}


def draft_receipt(record: Mapping[str, Any], seat: int) -> dict[str, Any] | None:
    """The receipt of ``seat``'s draft that a clock may still seal, if it has one."""
    return next(
        (
            entry
            for entry in record.get("receipts", [])
            if entry.get("draft") and entry["seat"] == seat and entry["state"] == "sealed"
        ),
        None,
    )


def with_draft_receipt(
    record: Mapping[str, Any],
    *,
    seat: int,
    version: int,
    move: Mapping[str, Any] | None,
    seal: Mapping[str, str] | None,
) -> Record:
    """``record`` with ``seat``'s draft, kept at ``version``, sealed as ``move`` (the move a
    clock would make of it: the page's seal, or one the server makes for a page that sent
    none); its earlier draft's receipt is marked replaced. ``move`` None: the draft is one no
    clock would seal now (cleared, or no longer a whole move), and only the earlier receipt is
    marked replaced."""
    receipts = [
        {**entry, "state": "replaced"}
        if entry.get("draft") and entry["seat"] == seat and entry["state"] == "sealed"
        else dict(entry)
        for entry in record.get("receipts", [])
    ]
    if move is not None:
        nonce = seal["nonce"] if seal else new_nonce()
        receipts.append(
            {
                "seat": seat,
                "type": move["type"],
                "version": version,
                "receipt": receipt(move, nonce),
                "by": "page" if seal else "server",
                "state": "sealed",
                "move": dict(move),
                "nonce": nonce,
                "draft": True,
            }
        )
    return {**record, "receipts": receipts}


def with_drafts_played(
    record: Mapping[str, Any], played: Mapping[int, Mapping[str, Any]]
) -> Record:
    """``record`` once a clock sealed drafts as moves (``played``: seat -> the move the clock
    made of the draft it found): each seat's draft receipt holds that move, to be revealed with
    its nonce, so that a draft changed after its receipt gives a move that is not the receipt's."""
    receipts = []
    for entry in record.get("receipts", []):
        entry = dict(entry)
        if entry.get("draft") and entry["state"] == "sealed" and entry["seat"] in played:
            entry.update(move=dict(played[entry["seat"]]), played=True)
        receipts.append(entry)
    return {**record, "receipts": receipts}


def with_reveal(record: Mapping[str, Any], kinds: Iterable[str]) -> Record:
    """``record`` with every sealed receipt of the action types ``kinds`` revealed: a draft's
    only when a clock played it (``with_drafts_played``); a draft's that no clock played never
    became a move, and is marked replaced."""
    kinds = set(kinds)
    receipts = record.get("receipts", [])
    if not any(e["state"] == "sealed" and e["type"] in kinds for e in receipts):
        return dict(record)
    opened = [
        {**entry, "state": _opened(entry)}
        if entry["state"] == "sealed" and entry["type"] in kinds
        else entry
        for entry in receipts
    ]
    return {**record, "receipts": opened}


def _opened(entry: Mapping[str, Any]) -> str:
    return "replaced" if entry.get("draft") and not entry.get("played") else "revealed"


def shown_receipt(entry: Mapping[str, Any], over: bool) -> dict[str, Any]:
    """A receipt as every viewer sees it: who, what kind, when and its digest; the move and
    nonce once revealed (every sealed one when the match is over, but a draft's that no clock
    played: it never became a move), never for a replaced one."""
    state = _opened(entry) if over and entry["state"] == "sealed" else entry["state"]
    shown = {key: entry[key] for key in ("seat", "type", "version", "receipt", "by")}
    if entry.get("draft"):
        shown["draft"] = True
    shown["state"] = state
    if state == "revealed":
        shown["move"], shown["nonce"] = entry["move"], entry["nonce"]
    return shown


def public_facts(
    record: Mapping[str, Any],
    *,
    match_id: str,
    server_seed: str,
    over: bool,
    kept: Iterable[str] = (),
) -> dict[str, Any]:
    """What every viewer (a seat, the host, a spectator, a replay, an export) is shown: the
    commitment and the players' seeds from the start, each receipt, and the server seed once
    the match is over. The same for everyone: nothing here depends on who looks. A receipt of
    an action type in ``kept`` (the game's SEALED_FOR_GOOD) stays sealed even then."""
    kept = set(kept)
    if not server_seed:
        return {"commitment": ""}
    facts: dict[str, Any] = {
        "commitment": commitment(match_id, server_seed),
        "players": dict(record.get("players", {})),
        "receipts": [
            shown_receipt(entry, over and entry["type"] not in kept)
            for entry in record.get("receipts", [])
        ],
    }
    if over:
        facts["server_seed"] = server_seed
    return facts


def receipts_match(facts: Mapping[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """How many revealed receipts were checked, and those whose move and nonce do not give the
    receipt (what each page checks too: static/js/fairness.js)."""
    revealed = [e for e in facts.get("receipts", []) if e.get("state") == "revealed"]
    wrong = [e for e in revealed if receipt(e["move"], e["nonce"]) != e["receipt"]]
    return len(revealed), wrong
