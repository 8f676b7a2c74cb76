"""A match on the server: the one path every change takes (services), its seats taken and its
start (seating), the host's operations (host_operations), the clocks fired when no action
comes in time (deadlines), the moves it keeps and the replays that rebuild any past state from
them (moves, replaying), who may run it and who each user is in it (authority), its clock, the
signal it announces events with, its chat, and what it pays into the season ledger (ledger).
"""
