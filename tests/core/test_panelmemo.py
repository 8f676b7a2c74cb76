"""Panels remembered by what they read (games/core/render/panelmemo.py), in the panels' Jinja2
environment (games/core/render/jinja.py)."""

from __future__ import annotations

import pytest
from django.template import engines
from django.test import override_settings
from django.utils.safestring import mark_safe
from jinja2 import nodes

from games.core.models import Match
from games.core.render import panelmemo
from games.core.render.jinja import PANEL_SINK


def env():
    return engines["jinja2"].env


def panel_inputs(source: str) -> tuple[str, ...] | None:
    """The inputs the panel of ``source`` is keyed by, as dotted paths (None: drawn every
    time)."""
    tree = env().parse(source)
    (block,) = tree.find_all(nodes.CallBlock)
    listed = block.call.args[2]
    if isinstance(listed, nodes.Const):
        return None

    def dotted(node: nodes.Node) -> str:
        if isinstance(node, nodes.Name):
            return node.name
        if isinstance(node, nodes.Getattr):
            return f"{dotted(node.node)}.{node.attr}"
        return f"{dotted(node.node)}.{node.arg.value}"

    return tuple(dotted(node) for node in listed.items)


def test_a_panel_lists_what_it_reads_and_not_the_names_it_binds():
    listed = panel_inputs(
        '{% panel %}<p id="p">{{ gv.score }}{% for row in gv.rows %}{{ row.0 }}'
        "{{ loop.index }}{% endfor %}{% with n=gv.name|default(view.viewer.seat) %}{{ n }}"
        '{% endwith %}{% if gv.over and not oob %}x{% endif %}{% set u = url("match", gv.id) %}'
        "{{ u }}</p>{% endpanel %}"
    )
    assert listed == (
        *("gv.id", "gv.name", "gv.over", "gv.rows", "gv.score"),
        *("oob", "url", "view.viewer.seat"),
    )


def test_a_path_inside_another_listed_is_left_out():
    assert panel_inputs('{% panel %}<p id="p">{{ gv.a.b }}{{ gv.a }}</p>{% endpanel %}') == (
        "gv.a",
    )


def test_an_include_makes_a_panel_drawn_every_time():
    assert panel_inputs('{% panel %}<div id="b">{% include name %}</div>{% endpanel %}') is None


def draw(source: str, **context: object) -> list[tuple[str, str]]:
    sink: list[tuple[str, str]] = []
    env().from_string(source).render({**context, PANEL_SINK: sink})
    return sink


@override_settings(PANEL_MEMO_CHECK=False)
def test_the_same_inputs_give_the_kept_drawing_and_new_inputs_a_fresh_one():
    panelmemo.DRAWINGS.clear()
    template = env().from_string(
        '{% panel %}<p id="s">{{ gv.score }} for {{ view.viewer.seat }}</p>{% endpanel %}'
    )

    def drawn(**context: object) -> str:
        sink: list[tuple[str, str]] = []
        template.render({**context, PANEL_SINK: sink})
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
    template = env().from_string(
        '{% panel %}<p id="c">{{ status }} {% for key, value in view.match.items() %}'
        "{{ value }}{% endfor %} {{ n }}</p>{% endpanel %}"
    )

    def drawn(**context: object) -> str:
        return template.render({**context, PANEL_SINK: []})

    live = {"status": Match.Status.LIVE, "view": {"match": {"status": Match.Status.LIVE}}}
    assert drawn(n=1, **live) == '<p id="c">live live 1</p>'
    assert drawn(n=1, **live) == '<p id="c">live live 1</p>'
    assert len(panelmemo.DRAWINGS) == 1  # kept, and found again
    assert drawn(n=True, **live) == '<p id="c">live live True</p>'
    assert len(panelmemo.DRAWINGS) == 2


def test_a_safe_string_and_a_choice_are_marshalled_and_a_missing_value_kept_apart():
    key = panelmemo.key_of(7, [mark_safe("host_operation"), Match.Status.LIVE])
    assert key is not None and not key.startswith(b"\0json")
    assert key != panelmemo.key_of(7, ["host_operation", "live"])  # marked safe: kept apart
    missing = env().from_string("{{ x }}").new_context({}).resolve("x")
    assert panelmemo.key_of(7, [missing]) != panelmemo.key_of(7, [""])


@override_settings(PANEL_MEMO_CHECK=True)
def test_the_check_finds_a_kept_drawing_that_differs_from_a_fresh_one():
    panelmemo.DRAWINGS.clear()
    template = env().from_string('{% panel %}<p id="k">{{ a }}</p>{% endpanel %}')
    template.render({"a": 1, PANEL_SINK: []})
    ((key, _html),) = panelmemo.DRAWINGS._kept.items()
    panelmemo.DRAWINGS.put(key, '<p id="k">stale</p>')  # as if an input had not been listed
    with pytest.raises(AssertionError, match="differs from a fresh drawing"):
        template.render({"a": 1, PANEL_SINK: []})


def test_values_are_escaped_as_django_escapes_them_and_a_missing_one_shows_nothing():
    html = (
        env()
        .from_string("{{ a }}|{{ b.c.d }}|{{ s }}|{{ n }}")
        .render(a="Bob's <b>", s=mark_safe("<i>x</i>"), n=None)
    )
    assert html == "Bob&#x27;s &lt;b&gt;||<i>x</i>|None"


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
