"""The kinds of notification: the events that need a person who is not watching the page.

Pure (standard library only): the decisions, the preferences page and the models all read the
kinds from here.
"""

from __future__ import annotations

from typing import Final

# A player's kinds.
MATCH_STARTED: Final = "match_started"
ROUND_STARTED: Final = "round_started"
YOUR_TURN: Final = "your_turn"
SUBMISSION_MISSING: Final = "submission_missing"
NOMINATED: Final = "nominated"
ELIMINATION_CANDIDATE: Final = "elimination_candidate"
ROUND_RESULT: Final = "round_result"
ELIMINATED_OR_SAVED: Final = "eliminated_or_saved"
EPISODE_STARTS: Final = "episode_starts"
LEDGER_CHANGED: Final = "ledger_changed"
SEASON_WON: Final = "season_won"
# The host's kinds.
SUBMISSIONS_MISSED: Final = "submissions_missed"
TIE_TO_SETTLE: Final = "tie_to_settle"
NOMINATION_NOT_MADE: Final = "nomination_not_made"
CAST_ASKED: Final = "cast_asked"

PLAYER_KINDS: Final = {
    MATCH_STARTED: "A match starts",
    ROUND_STARTED: "A new round starts",
    YOUR_TURN: "It is your turn",
    SUBMISSION_MISSING: "Your move or sealed submission is still missing before a deadline",
    NOMINATED: "You were nominated",
    ELIMINATION_CANDIDATE: "You are the Elimination Candidate (and your nomination deadline)",
    ROUND_RESULT: "A round's or match's result",
    ELIMINATED_OR_SAVED: "You were eliminated or saved",
    EPISODE_STARTS: "The season's next episode starts",
    LEDGER_CHANGED: "A host gave or took your garnets or Tokens of Life",
    SEASON_WON: "The season's winner",
}
HOST_KINDS: Final = {
    SUBMISSIONS_MISSED: "A deadline passed with submissions missing",
    TIE_TO_SETTLE: "A tie to settle",
    NOMINATION_NOT_MADE: "A nomination was not made in time",
    CAST_ASKED: "A player asks to join the season's cast",
}
KINDS: Final = {**PLAYER_KINDS, **HOST_KINDS}
# The kinds whose notifications have words anyone may read, which a season's webhook may post.
PUBLIC_KINDS: Final = (
    MATCH_STARTED,
    ROUND_STARTED,
    ROUND_RESULT,
    ELIMINATED_OR_SAVED,
    EPISODE_STARTS,
    NOMINATED,
    SEASON_WON,
    ELIMINATION_CANDIDATE,
)

# A match's start, told once per match and person whichever tells it first: a season tells its
# episode's (or death match's) start in its own words before its players are seated, and the
# core's "has started" that follows adds nothing.
ONCE_PER_MATCH: Final = frozenset({MATCH_STARTED, EPISODE_STARTS})

# Where a notification goes. The in-site list and email are each player's to choose per kind;
# the season webhook is the host's (it only ever carries a notification's public text).
SITE: Final = "site"
EMAIL: Final = "email"
WEBHOOK: Final = "webhook"
PLAYER_CHANNELS: Final = {SITE: "On this site", EMAIL: "By email"}
