"""Panels remembered by what they read (games/core/panelmemo.py)."""

from __future__ import annotations

import pytest
from django.template import Context, Engine, Template
from django.template.base import Variable
from django.test import override_settings
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import mark_safe

from games.core import panelmemo
from games.core.models import Match
from games.core.templatetags.arena import PANEL_SINK

ENGINE = Engine(
    libraries={"arena": "games.core.templatetags.arena", "chat": "games.core.templatetags.chat"},
    loaders=["django.template.loaders.app_directories.Loader"],
    dirs=[],
    app_dirs=False,
)


def panel_inputs(source: str) -> tuple[str, ...] | None:
    template = Template("{% load arena %}" + source, engine=ENGINE)
    from games.core.templatetags.arena import PanelNode

    (node,) = template.nodelist.get_nodes_by_type(PanelNode)
    listed = panelmemo.listed_inputs(node.nodelist)
    return None if listed is None else tuple(v.var for v in listed)


def test_a_panel_lists_what_it_reads_and_not_the_names_it_binds():
    listed = panel_inputs(
        '{% panel %}<p id="p">{{ gv.score }}{% for row in gv.rows %}{{ row.0 }}'
        "{{ forloop.counter }}{% endfor %}{% with n=gv.name|default:view.viewer.seat %}{{ n }}"
        '{% endwith %}{% if gv.over and not oob %}x{% endif %}{% url "match" gv.id as u %}{{ u }}'
        "</p>{% endpanel %}"
    )
    assert listed == (
        *("gv.id", "gv.name", "gv.over", "gv.rows", "gv.score"),
        *("oob", "view.viewer.seat"),
    )


def test_an_include_by_name_is_followed_and_one_by_variable_is_not():
    followed = panel_inputs(
        '{% panel %}<div id="b">{% include "core/_grid.html" with grid=gv.grid %}</div>'
        "{% endpanel %}"
    )
    assert followed == ("gv.grid",)
    assert panel_inputs('{% panel %}<div id="b">{% include name %}</div>{% endpanel %}') is None


def test_a_tag_given_the_whole_context_makes_a_panel_drawn_every_time():
    assert (
        panel_inputs('{% load chat %}{% panel %}<div id="c">{% chat_panel %}</div>{% endpanel %}')
        is None
    )


def draw(source: str, **context: object) -> list[tuple[str, str]]:
    sink: list[tuple[str, str]] = []
    Template("{% load arena %}" + source, engine=ENGINE).render(
        Context({**context, PANEL_SINK: sink})
    )
    return sink


@override_settings(PANEL_MEMO_CHECK=False)
def test_the_same_inputs_give_the_kept_drawing_and_new_inputs_a_fresh_one():
    panelmemo.DRAWINGS.clear()
    source = '{% panel %}<p id="s">{{ gv.score }} for {{ view.viewer.seat }}</p>{% endpanel %}'
    template = Template("{% load arena %}" + source, engine=ENGINE)

    def drawn(**context: object) -> str:
        sink: list[tuple[str, str]] = []
        template.render(Context({**context, PANEL_SINK: sink}))
        return sink[0][1]

    assert drawn(gv={"score": 3}, view={"viewer": {"seat": 0}}) == '<p id="s">3 for 0</p>'
    assert len(panelmemo.DRAWINGS) == 1
    assert drawn(gv={"score": 3}, view={"viewer": {"seat": 0}}) == '<p id="s">3 for 0</p>'
    assert len(panelmemo.DRAWINGS) == 1  # reused
    # Another seat reads another value: its own drawing, never the first seat's.
    assert drawn(gv={"score": 3}, view={"viewer": {"seat": 1}}) == '<p id="s">3 for 1</p>'
    assert drawn(gv={"score": 4}, view={"viewer": {"seat": 0}}) == '<p id="s">4 for 0</p>'
    assert len(panelmemo.DRAWINGS) == 3


@override_settings(PANEL_MEMO_CHECK=False)
def test_an_input_that_is_not_plain_data_is_never_kept():
    panelmemo.DRAWINGS.clear()

    class Thing:
        name = "a"

    draw('{% panel %}<p id="t">{{ thing.name }}{{ thing }}</p>{% endpanel %}', thing=Thing())
    assert len(panelmemo.DRAWINGS) == 0


@override_settings(PANEL_MEMO_CHECK=False)
def test_a_choice_of_a_model_is_plain_data_and_keyed_by_its_text():
    """A match's status (a model's choice, a subclass of str) is kept like its text, read
    alone or deep in what a loop reads; values alike only in how they print are kept apart
    (1 and True)."""
    panelmemo.DRAWINGS.clear()
    template = Template(
        '{% load arena %}{% panel %}<p id="c">{{ status }} {% for key, value in view.match.items %}'
        "{{ value }}{% endfor %} {{ n }}</p>{% endpanel %}",
        engine=ENGINE,
    )

    def drawn(**context: object) -> str:
        return template.render(Context({**context, PANEL_SINK: []}))

    live = {"status": Match.Status.LIVE, "view": {"match": {"status": Match.Status.LIVE}}}
    assert drawn(n=1, **live) == '<p id="c">live live 1</p>'
    assert drawn(n=1, **live) == '<p id="c">live live 1</p>'
    assert len(panelmemo.DRAWINGS) == 1  # kept, and found again
    assert drawn(n=True, **live) == '<p id="c">live live True</p>'
    assert len(panelmemo.DRAWINGS) == 2


def test_a_safe_string_and_a_choice_read_alone_are_marshalled_not_sent_to_json():
    """Only a subclass of str deep in a value takes JSON's slower way: one read alone (a
    {% with %} of a literal, a match's status) is keyed as its text by marshal."""
    inputs = tuple(Variable(name) for name in ("label", "status", "token"))
    token = SimpleLazyObject(lambda: "a-csrf-token")  # as a request's csrf_token is
    values = {"label": mark_safe("host_operation"), "status": Match.Status.LIVE, "token": token}
    key = panelmemo.key_of(7, inputs, Context(values))
    assert key is not None and not key.startswith(b"\0json")
    plain = {"label": "host_operation", "status": "live", "token": "a-csrf-token"}
    assert key != panelmemo.key_of(7, inputs, Context(plain))  # marked safe: kept apart


@override_settings(PANEL_MEMO_CHECK=True)
def test_the_check_finds_a_kept_drawing_that_differs_from_a_fresh_one():
    panelmemo.DRAWINGS.clear()
    source = '{% load arena %}{% panel %}<p id="k">{{ a }}</p>{% endpanel %}'
    template = Template(source, engine=ENGINE)
    template.render(Context({"a": 1, PANEL_SINK: []}))
    ((key, _html),) = panelmemo.DRAWINGS._kept.items()
    panelmemo.DRAWINGS.put(key, '<p id="k">stale</p>')  # as if an input had not been listed
    with pytest.raises(AssertionError, match="differs from a fresh drawing"):
        template.render(Context({"a": 1, PANEL_SINK: []}))


def test_a_grid_is_drawn_with_its_coordinates_escaped_and_one_cell_in_the_tab_order():
    from games.core.templatetags.arena import grid_cells, grid_html, with_coordinates

    grid = {
        "name": "board",
        "caption": 'Rows "1" to 2',
        "columns": "AB",
        "board": "xo\nox",
        "looks": {
            "x": {"css": "gem-red", "text": "", "name": "red <gem>"},
            "o": {"css": "gem-blue", "text": "", "name": "blue"},
        },
        "marks": {"B2": "proved"},
    }
    html = grid_html(with_coordinates(grid_cells(grid)))
    assert 'aria-label="Rows &quot;1&quot; to 2"' in html
    assert "<th>A</th><th>B</th>" in html and "<tr><th>2</th>" in html
    assert 'class="cell gem-red proved" data-cell="B2" aria-label="B2, red &lt;gem&gt;"' in html
    assert html.count('tabindex="0"') == 1 and html.count('tabindex="-1"') == 3
    assert 'data-cell="A1" aria-label="A1, red &lt;gem&gt;" tabindex="0"' in html


class _Seat:
    name = "Ada"

    def title(self) -> str:
        return "EC"


@pytest.mark.parametrize(
    "path",
    [
        "gv.score",
        "gv.board.rows",
        "gv.missing",
        "gv.items",
        "gv.cells.0",
        "seat.name",
        "seat.title",
        "gv.counted",
        "'literal'",
        "3",
        "nothing.at.all",
        "gv.score.real",
    ],
)
def test_a_key_reads_each_input_as_the_template_would(path):
    """key_of's quick path through plain dicts gives what Django's own lookup gives, and every
    other kind of lookup (a method, an index, an attribute, a missing key) is Django's."""
    context = Context(
        {
            "gv": {"score": 7, "board": {"rows": [1, 2]}, "cells": ["a", "b"], "counted": len},
            "seat": _Seat(),
        }
    )
    variable = Variable(path)
    try:
        expected = variable.resolve(context)
    except Exception as error:  # noqa: BLE001 - the same error either way
        with pytest.raises(type(error)):
            panelmemo._resolved(variable, context)
        return
    assert panelmemo._resolved(variable, context) == expected
