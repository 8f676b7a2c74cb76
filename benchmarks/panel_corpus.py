"""Every panel of whole bot-played matches, for every audience at every version: a corpus of the
panels' HTML, to show that a change to how panels are drawn draws the same HTML (issue 37).

``--play`` plays every real game with its bots (tests/bot_matches.py, the benchmark's seed) into
the SQLite file ``--db`` and keeps the file; without it, the matches already in that file are
drawn again. Either way every version of every match is drawn for every audience (each seat, a
spectator, the host) three ways (a live frame's panels, a page's, a replay step's) and written
to ``--out`` as JSON. ``--compare`` reads a corpus written before and lists every panel that
differs (and whether only in whitespace).

    python -m benchmarks.panel_corpus --db /tmp/corpus.sqlite3 --play --out before.json
    (change the code)
    python -m benchmarks.panel_corpus --db /tmp/corpus.sqlite3 --out after.json \
        --compare before.json

Drawing the same file twice draws the same matches: the same ids, the same clocks (the time is
fixed at the end of play, stored in the corpus).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

# Where every match starts: the clocks' deadlines are drawn in the panels.
START = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
# The ways a version is drawn: (name, oob, live).
WAYS = (("frame", True, True), ("page", False, True), ("replay", False, False))


def _setup(db: str, play: bool) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gemsite.test_settings")
    os.environ.setdefault("DEBUG", "0")
    os.environ.setdefault("SECRET_KEY", secrets.token_urlsafe(50))
    os.environ["PANEL_MEMO_CHECK"] = "1"  # every remembered panel drawn again and compared
    os.environ["SQLITE_PATH"] = db
    if play and os.path.exists(db):
        os.remove(db)
    import django

    django.setup()
    if play:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)


def _play(events: int) -> None:
    from django.contrib.auth import get_user_model

    from games.core.match import clock as core_clock
    from games.core.models import Match
    from tests.bot_matches import TABLES, play

    now = [START]
    core_clock.now = lambda: now[0]  # type: ignore[assignment]

    def advance(seconds: float) -> None:
        now[0] += timedelta(seconds=seconds)

    for key in sorted(TABLES):
        host = get_user_model().objects.create_user(f"host-{key}")
        played = play(key, host, advance, events=events, seed=1129)
        match = Match.objects.get(pk=played.match.pk)
        match.title = f"corpus:{key}:{now[0].isoformat()}"
        match.save(update_fields=["title"])


def _draw(games: set[str] | None = None) -> dict[str, Any]:
    from games.core.match import clock as core_clock
    from games.core.match.replaying import state_at
    from games.core.models import Match
    from games.core.render.rendering import audiences, render_panel_list, view_of

    corpus: dict[str, Any] = {}
    for match in Match.objects.with_seats().filter(title__startswith="corpus:").order_by("pk"):
        _, key, at = match.title.split(":", 2)
        if games and key not in games:
            continue
        fixed = datetime.fromisoformat(at)
        core_clock.now = lambda fixed=fixed: fixed  # type: ignore[assignment]
        versions: dict[str, Any] = {}
        for version in range(match.version + 1):
            state = state_at(match, version)
            drawn: dict[str, Any] = {}
            for viewer in audiences(match):
                view = view_of(match, viewer, state)
                for way, oob, live in WAYS:
                    panels = render_panel_list(match, view, version=version, oob=oob, live=live)
                    drawn[f"{viewer.audience}/{way}"] = panels
            versions[str(version)] = drawn
        corpus[key] = {"match": match.public_id, "versions": versions}
    return corpus


def _count(corpus: dict[str, Any]) -> tuple[int, int]:
    drawings = panels = 0
    for game in corpus.values():
        for drawn in game["versions"].values():
            drawings += len(drawn)
            panels += sum(len(p) for p in drawn.values())
    return drawings, panels


_SPACE = re.compile(r"\s+")


def compare(before: dict[str, Any], after: dict[str, Any], shown: int = 20) -> list[str]:
    """Every panel that differs between two corpora, as lines of a report."""
    lines: list[str] = []
    differing = whitespace_only = 0
    for key in sorted(set(before) | set(after)):
        old_versions = before.get(key, {}).get("versions", {})
        new_versions = after.get(key, {}).get("versions", {})
        if set(old_versions) != set(new_versions):
            lines.append(f"{key}: versions differ ({len(old_versions)} / {len(new_versions)})")
        for version in sorted(set(old_versions) & set(new_versions), key=int):
            old_drawn, new_drawn = old_versions[version], new_versions[version]
            for drawing in sorted(set(old_drawn) | set(new_drawn)):
                old = [tuple(p) for p in old_drawn.get(drawing, [])]
                new = [tuple(p) for p in new_drawn.get(drawing, [])]
                if old == new:
                    continue
                if [i for i, _ in old] != [i for i, _ in new]:
                    differing += 1
                    lines.append(
                        f"{key} v{version} {drawing}: panels {[i for i, _ in old]} -> "
                        f"{[i for i, _ in new]}"
                    )
                    continue
                for (panel_id, old_html), (_, new_html) in zip(old, new, strict=True):
                    if old_html == new_html:
                        continue
                    differing += 1
                    same_words = _SPACE.sub(" ", old_html) == _SPACE.sub(" ", new_html)
                    whitespace_only += same_words
                    if differing <= shown:
                        what = "whitespace only" if same_words else "differs"
                        lines.append(f"{key} v{version} {drawing} #{panel_id}: {what}")
                        diff = difflib.unified_diff(
                            old_html.splitlines(), new_html.splitlines(), lineterm="", n=0
                        )
                        lines += ["    " + line for line in list(diff)[2:12]]
    lines.append(f"{differing} panels differ, {whitespace_only} of them in whitespace only")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", required=True, help="the SQLite file the matches are kept in")
    parser.add_argument("--play", action="store_true", help="play the matches first")
    parser.add_argument("--events", type=int, default=400, help="at most this many a match")
    parser.add_argument("--out", required=True)
    parser.add_argument("--compare", help="a corpus written before")
    parser.add_argument("--games", default="", help="only these (key,key): a quicker look")
    args = parser.parse_args()
    _setup(args.db, args.play)
    if args.play:
        _play(args.events)
    corpus = _draw(set(args.games.split(",")) - {""})
    with open(args.out, "w") as out:
        json.dump(corpus, out)
    drawings, panels = _count(corpus)
    print(f"{len(corpus)} matches, {drawings} drawings, {panels} panels -> {args.out}")
    if args.compare:
        with open(args.compare) as old:
            before = json.load(old)
        if args.games:
            before = {key: before[key] for key in corpus}
        print("\n".join(compare(before, corpus)))


if __name__ == "__main__":
    main()
