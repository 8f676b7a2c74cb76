"""games.core.live.protocol: what a client frame may hold before anything else reads it."""

from __future__ import annotations

import json

import pytest

from games.core.live.protocol import ProtocolError, parse_client_message

ACTION = '{"type": "action", "id": "a1", "version": 3, "action": {"type": "add", "amount": 1, %s}}'


@pytest.mark.parametrize(
    "text",
    [
        ACTION % '"note": NaN',
        ACTION % '"note": Infinity',
        ACTION % '"note": [-Infinity]',
        ACTION % '"note": 1e400',  # a number JSON allows, too large for a float: infinity
        ACTION % '"note": "x\\u0000y"',
        ACTION % '"note\\u0000": 1',
        ACTION % '"note": {"deep": ["\\ud800"]}',
        ACTION % '"note": "\\udfff"',
        ACTION % '"note": "\\ude00\\ud83d"',  # a pair the wrong way round
        '{"type": "draft", "draft": {"cells": ["A1\\u0000"]}}',
        '{"type": "draft", "draft": {"cells": ["\\ud800"]}}',
        '{"type": "chat", "id": "chat-1", "channel": "players", "text": "gg\\u0000"}',
        '{"type": "chat", "id": "chat-1", "channel": "players", "text": "\\udbff"}',
        '{"type": "ping", "pad": NaN}',
    ],
)
def test_it_refuses_nan_nul_and_lone_surrogates_anywhere_in_a_message(text):
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(text, None)
    assert refused.value.code == "bad_message"
    assert "cannot" in refused.value.message


def test_a_refused_action_keeps_its_id_for_the_answer():
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(ACTION % '"note": "\\u0000"', None)
    assert refused.value.message_id == "a1"


def test_it_keeps_characters_beyond_the_basic_plane():
    gem = parse_client_message(ACTION % '"note": "\\ud83d\\udc8e \\u00e9"', None)
    assert gem["action"]["note"] == "\U0001f48e \u00e9"


def test_a_number_too_long_to_read_is_bad_json_not_a_crash():
    with pytest.raises(ProtocolError) as refused:
        parse_client_message(ACTION % f'"note": {"9" * 5000}', None)
    assert refused.value.code == "bad_json"


def test_a_deep_message_is_walked_without_recursion():
    deep = {"type": "ping", "pad": json.loads("[" * 900 + "]" * 900)}
    assert parse_client_message(json.dumps(deep), None)["type"] == "ping"
