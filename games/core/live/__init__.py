"""Live delivery: the websocket consumer and its routes, the protocol's messages, the one
route everything sent takes (broadcast, on commit), the spectators' gallery, the
scheduler that fires clocks, what a Redis outage does to new sockets, and a Python
client of the protocol for tests, bots and load tools.
"""
