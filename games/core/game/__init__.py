"""What a game is to the core: the definition a game declares and the checks it passes
when it is registered (gamedef, flowcontract, contract: its settings), the registry of
games, and the pure helpers flows and engines import (flowkit, words, gridtext,
fairness: the seeds every draw comes from). Nothing here touches the database.
"""
