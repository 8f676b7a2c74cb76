"""Seasons: a reality game run over many matches, on top of the core.

A season's main match and death match are core matches created through games.core.match.services
and seated with the cast; garnets and Tokens of Life are the core ledger's
(games/core/match/ledger.py); the rules are rules.py's (pure). Every change to a season is an
action: check, lock, change, write the line players read in the season's log, tell whoever it
concerns through games.notifications in the same transaction, commit. Read in a season's order:

- roles.py: who runs a season (hosts, co-hosts, superusers) and the check before a host's action;
- hosts.py: opening a season, co-hosts made and unmade, its format and its log;
- cast.py: the cast and its invitations, who is still in, whether the season is over;
- tokens.py: garnets and Tokens of Life a host gives or takes, the Tokens everyone may count;
- episodes.py: an episode, its main match, the final, the death match set up;
- nominations.py: the Elimination Candidate named, the nomination and its clock, a Token spent;
- eliminations.py: a death match's end: saved, eliminated, or the season won;
- tick.py: the scheduler's tick (``run_clocks``) that moves episodes on by themselves;
- standings.py: the season as everyone may read it (the page and its exports).
"""
