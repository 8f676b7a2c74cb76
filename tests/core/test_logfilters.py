"""The site's log leaves out a worker's cancelled clean-ups and keeps every other fault."""

from __future__ import annotations

import asyncio
import logging

import pytest


def _log_with(error: BaseException) -> None:
    try:
        raise error
    except BaseException:
        logging.getLogger("channels_redis.pubsub").exception(
            "Unexpected exception while cleaning-up channel:"
        )


def test_a_cancelled_unsubscribe_is_left_out_and_a_failed_one_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    _log_with(asyncio.CancelledError())
    assert caplog.records == []
    _log_with(ConnectionError("redis went away"))
    assert [record.exc_info[1].args[0] for record in caplog.records] == ["redis went away"]


# --- a refused request is one line (issue 34, item 11) --------------------------------------------


def _lines_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    """What the site's console handler would write for each record of ``django.request``:
    the message, and a traceback when the record carries one."""
    formatter = logging.Formatter()
    return [
        line
        for record in caplog.records
        if record.name == "django.request"
        for line in formatter.format(record).splitlines()
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/notifications/season/{season}/webhook/", "/admin/auth/group/", "/admin/auth/user/"]
)
def test_a_refused_request_is_logged_as_one_line(
    client, make_user, caplog: pytest.LogCaptureFixture, path: str
) -> None:
    """A signed-in player on a host's page, a staff user without the permission on the
    dashboard: one line each, with the path, and no traceback."""
    from games.core.models import Season

    season = Season.objects.create(name="S1")
    client.force_login(make_user("mallory", is_staff=True))
    caplog.set_level(logging.INFO)

    url = path.format(season=season.pk)
    assert client.get(url).status_code == 403

    assert _lines_logged(caplog) == [f"Forbidden (Permission denied): {url}"]


def test_a_server_error_keeps_its_traceback(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    try:
        raise RuntimeError("a fault")
    except RuntimeError:
        logging.getLogger("django.request").error(
            "Internal Server Error: /x/", exc_info=True, extra={"status_code": 500}
        )
    (record,) = caplog.records
    assert record.exc_info is not None and record.exc_info[1].args == ("a fault",)


# --- the channel layer's reader during a Redis outage (issue 34, item 10) -------------------------


def test_the_layer_readers_failures_during_an_outage_are_one_line(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """channels_redis's reader logs a traceback each second while Redis is down (51 in the
    probe's outage); the outage is said once instead, and another fault is still logged."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    from games.core.live import outage

    monkeypatch.setattr(outage, "CHANNEL_LAYER", outage.Outage("Redis (the channel layer)"))
    caplog.set_level(logging.INFO)
    reader = logging.getLogger("channels_redis.pubsub")
    for _ in range(5):
        try:
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379.")
        except RedisConnectionError:
            reader.exception("Unexpected exception in receive task")

    (said,) = caplog.records
    assert said.name == "games.core.live.outage" and said.exc_info is None
    assert said.getMessage().startswith("Redis (the channel layer) cannot be reached")

    try:
        raise KeyError("a bug")
    except KeyError:
        reader.exception("Unexpected exception in receive task")
    assert caplog.records[-1].exc_info is not None
