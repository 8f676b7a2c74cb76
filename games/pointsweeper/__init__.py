"""Pointsweeper: claim tiles across three chess boards, scouting with chess pieces."""
