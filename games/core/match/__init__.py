"""A match on the server: the one path every change takes (services), the moves it keeps
and the replays that rebuild any past state from them (moves, replaying), who may run
it and who each user is in it (authority), its clock, the signal it announces events
with, its chat, and what it pays into the season ledger (ledger).
"""
