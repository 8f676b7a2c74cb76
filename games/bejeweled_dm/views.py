"""The practice board: try proofs on any board and see the count; ask for the optimum. It is
never part of a match, so the aids that ranked play forbids are allowed here."""

from __future__ import annotations

import secrets

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from games.bejeweled_dm import bot, engine
from games.bejeweled_dm.page import board_grid

OFFER_FIELDS = {"starter": engine.STARTERS, "passive": engine.PASSIVES, "active": engine.ACTIVES}
# The longest real proof ("Column H7; Recolor R B; Swap H6 H7; Swap A1 A2" and the like) is far
# shorter; anything longer is not a proof, and is neither resolved nor echoed back in full.
MAX_PROOF_CHARS = 200


def _board_from(request: HttpRequest) -> tuple[str, str | None]:
    text = request.POST.get("board") or request.GET.get("board")
    if text:
        try:
            return engine.format_board(engine.parse_board(text)), None
        except ValueError as error:
            return engine.format_board(engine.generate_board(0)), f"That board: {error}"
    seed = request.GET.get("seed", "")
    seed_number = int(seed) if seed.isdigit() else secrets.randbits(32)
    return engine.format_board(engine.generate_board(seed_number)), None


def _offer_from(request: HttpRequest) -> dict[str, list[str]]:
    data = request.POST if request.method == "POST" else request.GET
    return {
        kind: [name for name in data.getlist(kind) if name in names] or list(names)
        for kind, names in OFFER_FIELDS.items()
    }


def practice(request: HttpRequest) -> HttpResponse:
    board, board_error = _board_from(request)
    offer = _offer_from(request)
    context = {
        "board": board,
        "grid": board_grid(board),
        "offer": offer,
        "offer_choices": [
            {"kind": kind, "options": [{"name": n, "checked": n in offer[kind]} for n in names]}
            for kind, names in OFFER_FIELDS.items()
        ],
        "board_error": board_error,
        "proof": request.POST.get("proof", "")[:MAX_PROOF_CHARS],
    }
    if request.method == "POST":
        context.update(_try(board, offer, request.POST.get("proof", ""), request.POST))
        if request.htmx:
            return render(request, "bejeweled_dm/_practice_result.html", context)
    return render(request, "bejeweled_dm/practice.html", context)


def _try(board: str, offer: dict[str, list[str]], proof: str, data) -> dict:  # type: ignore[no-untyped-def]
    if "optimum" in data:
        count, best = bot.optimum(board, offer)
        result = engine.resolve(board, best) if best else None
        return {"optimum": count, "tried": best, "result": result, "steps": _steps(result)}
    if not proof.strip():
        return {"error": "Write a proof first, e.g. 'Plus F4; Bend; Swap F4 F5'."}
    if len(proof) > MAX_PROOF_CHARS:
        return {
            "error": (
                f"That proof is {len(proof):,} characters long; a proof has at most "
                f"{MAX_PROOF_CHARS} (e.g. 'Plus F4; Bend; Swap F4 F5'). It was not tried."
            )
        }
    try:
        parsed = engine.parse_proof(proof)
        for kind, name in (
            ("starter", parsed.starter),
            ("passive", parsed.passive),
            ("active", parsed.active),
        ):
            if name not in offer[kind]:
                raise ValueError(f"{name} is not in the offer you chose")
        result = engine.resolve(board, parsed)
    except ValueError as error:
        return {"error": str(error), "tried": proof}
    return {"tried": engine.format_proof(parsed), "result": result, "steps": _steps(result)}


def _steps(result: engine.Resolution | None) -> list[dict]:
    if result is None:
        return []
    return [{**step, "grid": board_grid(step["board"])} for step in result.steps]
