"""Patches of a panel's HTML: what changed between the HTML a page holds and the new HTML.

A panel is sent whole the first time; after that, when the page holds the panel's previous HTML,
an update frame may carry only the pieces that changed (docs/protocol.md, "html_patch"). The
HTML is cut into tokens, each ending at a ``>`` or a ``"`` (a tag's name and attribute names, an
attribute's value, the text before a tag), so a board cell whose gem changed travels as its new
class and label, not its whole tag. An operation is
``[start, count, text]``: replace ``count`` tokens from token ``start`` of the page's HTML with
``text``; the operations of a patch are in ascending order and do not overlap, and each one's
``start`` counts tokens of the HTML the page holds (static/js/match.js applies them from the
last to the first, as :func:`apply` does).

Pure: standard library only (and the project's bounded map, games/core/render/lru.py).
"""

from __future__ import annotations

import bisect
import difflib
import itertools
import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from games.core.render.lru import Lru

Op = list  # [start, count, text]

_TOKEN = re.compile(r'[^>"]*[>"]|[^>"]+\Z')
# Two changed runs closer than this many characters are sent as one (an operation's own
# brackets and numbers cost about this much).
JOIN_GAP_CHARS = 12
# Past this many tag pairs in the changed middle, the middle is replaced whole rather than
# matched token by token (difflib's matching grows with the product: 257,000 pairs, a
# Glittering Paths board of a new round, took 6.5 ms to save 4 KB of its 13 KB).
MATCH_LIMIT = 100_000


def tokens(html: str) -> list[str]:
    return _TOKEN.findall(html)


_TAG = re.compile(r"[^>]*>|[^>]+\Z")


Cut = tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...]]
# A text's tags and where each starts (in characters, with the text's length after them).
Tags = tuple[tuple[str, ...], tuple[int, ...]]
# The panels cut lately, by their HTML: an event's panels are the bases of the next event's
# patches (a Seven Gem Swap round draws some 25 panels, seven seats' among them). At most
# 200,000 tags and places in all (some 12 MB).
_CUTS: Lru[str, Tags] = Lru(512, weigh=lambda cut: 2 * len(cut[0]), budget=200_000)


def _cut(html: str) -> Cut:
    """``html`` as its tokens, its tags (cut at ``>`` only: each a run of tokens) and where each
    tag's tokens start (with the count after them): what a patch's operations count. A diff
    cuts only the tags (``_tags``) and the tokens of the tags that changed."""
    tags = tuple(_TAG.findall(html))
    # A tag's tokens end at each of its quotes and at its ">"; text after the last tag ends
    # at each quote and, unless it ends with one, at its end.
    counts = [tag.count('"') + 1 for tag in tags]
    if tags and not tags[-1].endswith(">") and tags[-1].endswith('"'):
        counts[-1] -= 1
    return tuple(tokens(html)), tags, (0, *itertools.accumulate(counts))


def _tags(html: str) -> Tags:
    """``html``'s tags and where each starts, in characters."""
    kept = _CUTS.get(html)
    if kept is not None:
        return kept
    tags = tuple(_TAG.findall(html))
    cut = tags, (0, *itertools.accumulate(map(len, tags)))
    _CUTS.put(html, cut)
    return cut


@lru_cache(maxsize=4096)
def _tag_tokens(tag: str) -> tuple[str, ...]:
    """A tag's tokens (tags recur from one version of a panel to the next: a status chip, a
    player's row)."""
    return tuple(_TOKEN.findall(tag))


def _tags_between(html: str, start: int, end: int) -> tuple[tuple[str, ...], Sequence[int], int]:
    """The tags of ``html[start:end]`` (both ends between two tags), where each starts and
    what to add to that to place it in ``html``. A middle of more than half the text is taken
    from the whole text's tags (kept: this event's panel is the next one's base), a smaller one
    is cut alone."""
    if 2 * (end - start) <= len(html):
        tags, at = _tags(html[start:end])
        return tags, at, start
    tags, at = _tags(html)
    first = bisect.bisect_left(at, start)
    last = bisect.bisect_left(at, end, first)
    return tags[first:last], at[first : last + 1], 0


class _Counter:
    """The tokens of ``text[start:end]`` before a place in it, counted at places met in
    ascending order (each token ends at a ">" or a quote; only the last may end at ``end``)."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.start = self.place = start
        self.end = end
        self.count = 0

    def at(self, place: int) -> int:
        text = self.text
        if place < self.place:  # not met in order: counted from the start
            self.place, self.count = self.start, 0
        self.count += text.count(">", self.place, place) + text.count('"', self.place, place)
        self.place = place
        if place == self.end > self.start and text[place - 1] not in '>"':
            return self.count + 1
        return self.count


def diff(before: str, after: str) -> list[Op]:
    """The operations that turn ``before`` into ``after``: the tags that changed are found first
    (few to match), then each changed tag that kept its shape sends only its changed tokens.
    Only the middle that changed is cut into tags: the HTML both start and end with, whole
    tags, is found by comparing the texts (a board of 15 KB with three cells changed took
    0.5 ms when all of it was cut), and tokens are counted, cut only in the tags that changed."""
    if before == after:
        return []
    head = _shared_head(before, after)
    tail = _shared_tail(before, after, head)
    # Every token ends at a ">" or a quote: the head's tokens are counted by them.
    skipped = before.count(">", 0, head) + before.count('"', 0, head)
    middle = _tag_diff(before, after, head, len(before) - tail, len(after) - tail)
    return [[start + skipped, count, text] for start, count, text in middle]


def _tag_diff(before: str, after: str, start: int, end: int, after_end: int) -> list[Op]:
    """``diff`` of ``before[start:end]`` and ``after[start:after_end]``, their tokens counted
    from ``start``."""
    old, old_at, old_shift = _tags_between(before, start, end)
    new, new_at, new_shift = _tags_between(after, start, after_end)
    counted = _Counter(before, start, end)
    # Each changed run: its tokens in the old middle (from, to), where they are in ``before``
    # (in characters) and the text they are replaced with.
    runs: list[tuple[int, int, int, int, str]] = []
    for i1, i2, j1, j2 in _changed(old, new):
        if i2 - i1 != j2 - j1:
            place, place_end = old_at[i1] + old_shift, old_at[i2] + old_shift
            text = after[new_at[j1] + new_shift : new_at[j2] + new_shift]
            runs.append((counted.at(place), counted.at(place_end), place, place_end, text))
            continue
        for k in range(i2 - i1):
            old_tag, new_tag = old[i1 + k], new[j1 + k]
            if old_tag == new_tag:
                continue
            place = old_at[i1 + k] + old_shift
            first = counted.at(place)
            old_tokens, new_tokens = _tag_tokens(old_tag), _tag_tokens(new_tag)
            if len(old_tokens) != len(new_tokens):
                runs.append((first, first + len(old_tokens), place, place + len(old_tag), new_tag))
                continue
            for t, (old_token, new_token) in enumerate(zip(old_tokens, new_tokens, strict=True)):
                if old_token != new_token:
                    runs.append(
                        (first + t, first + t + 1, place, place + len(old_token), new_token)
                    )
                place += len(old_token)
    return [[i1, i2 - i1, text] for i1, i2, text in _joined(runs, before)]


def _shared_head(a: str, b: str) -> int:
    """The length of the longest start of ``a`` and ``b`` made of whole tags (ending at a
    ">"), found by halving (each comparison of two slices runs at C speed)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return a.rfind(">", 0, low) + 1


def _shared_tail(a: str, b: str, head: int) -> int:
    """The length of the longest end of ``a`` and ``b`` after their shared ``head`` that starts
    just after a ">" (whole tags, as the head)."""
    low, high = 0, min(len(a), len(b)) - head
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    cut = a.find(">", len(a) - low)
    return 0 if cut == -1 else len(a) - cut - 1


def _changed(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int, int, int]]:
    """The runs of ``old`` replaced by runs of ``new``, as (i1, i2, j1, j2)."""
    start = 0
    shortest = min(len(old), len(new))
    while start < shortest and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    middle_old, middle_new = old[start:end_old], new[start:end_new]
    if len(middle_old) == len(middle_new):
        return [
            (start + i, start + i + 1, start + i, start + i + 1)
            for i, (a, b) in enumerate(zip(middle_old, middle_new, strict=True))
            if a != b
        ]
    aligned = _aligned(middle_old, middle_new)
    if aligned is not None:
        return [(start + i1, start + i2, start + j1, start + j2) for i1, i2, j1, j2 in aligned]
    if middle_old and middle_new and len(middle_old) * len(middle_new) <= MATCH_LIMIT:
        matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
        return [
            (start + i1, start + i2, start + j1, start + j2)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"
        ]
    return [(start, end_old, start, end_new)]


# A walk along both tag lists finds them in step again after a change if the next SYNC_TAGS tags
# agree within this many tags skipped on the two sides together.
SYNC_WINDOW = 32
SYNC_TAGS = 3
# For each number of tags skipped in all, the ways to split it, the most even first: a tag
# replaced by another before one inserted or removed.
_SKIPS = [
    sorted(range(total + 1), key=lambda k: abs(2 * k - total)) for total in range(SYNC_WINDOW + 1)
]


def _aligned(old: Sequence[str], new: Sequence[str]) -> list[tuple[int, int, int, int]] | None:
    """The changed runs of a middle whose changes are few and short (a score changed in each
    row, a card added to one): a walk along both lists that, at each difference, skips the
    fewest tags on either side after which they agree again. Linear where difflib's matching
    grows with the product (a 220-tag table: 0.7 ms). None when it loses step: difflib then."""
    runs = []
    i = j = 0
    n, m = len(old), len(new)
    while i < n and j < m:
        if old[i] == new[j]:
            i += 1
            j += 1
            continue
        step = _resync(old, new, i, j)
        if step is None:
            return None
        runs.append((i, i + step[0], j, j + step[1]))
        i, j = i + step[0], j + step[1]
    if i < n or j < m:
        runs.append((i, n, j, m))
    return runs


def _resync(old: Sequence[str], new: Sequence[str], i: int, j: int) -> tuple[int, int] | None:
    """The fewest tags to skip in ``old`` and ``new`` from ``i`` and ``j`` (together at most
    SYNC_WINDOW) after which the next SYNC_TAGS tags agree, or the two both end."""
    n, m = len(old), len(new)
    for total in range(1, SYNC_WINDOW + 1):
        for skip_old in _SKIPS[total]:
            a, b = i + skip_old, j + total - skip_old
            if a > n or b > m:
                continue
            if a == n or b == m:
                if a == n and b == m:
                    return skip_old, total - skip_old
                continue
            if old[a : a + SYNC_TAGS] == new[b : b + SYNC_TAGS]:
                return skip_old, total - skip_old
    return None


def _joined(runs: list[tuple[int, int, int, int, str]], before: str) -> list[tuple[int, int, str]]:
    """Neighbouring runs with only a little unchanged HTML between them, made one (the text
    between them is the same in both: it is sent again)."""
    joined: list[list[Any]] = []
    for i1, i2, c1, c2, text in runs:
        if joined:
            last = joined[-1]
            # Every token has a character at least: more tokens than that are a longer gap.
            if i1 - last[1] <= JOIN_GAP_CHARS and c1 - last[3] <= JOIN_GAP_CHARS:
                last[4] += before[last[3] : c1] + text
                last[1], last[3] = i2, c2
                continue
        joined.append([i1, i2, c1, c2, text])
    return [(i1, i2, text) for i1, i2, _, _, text in joined]


def apply(before: str, ops: list[Op]) -> str:
    """``before`` with the operations applied (what a page does)."""
    parts = tokens(before)
    for start, count, text in reversed(ops):
        if start < 0 or count < 0 or start + count > len(parts):
            raise ValueError(f"a patch operation at token {start} does not fit")
        parts[start : start + count] = [text]
    return "".join(parts)


def worth_sending(patch: str, after: str) -> bool:
    """A patch is sent only when it is shorter than the HTML it stands for by a margin (a tenth)
    that pays for applying it; a block added to a panel (a form appearing) still goes as a
    patch, not with the rest of the panel again. Both are measured as they travel: ``patch``
    is the operations' JSON text, ``after`` the HTML as the inside of a JSON string."""
    return len(patch) < 0.9 * (len(after) + 2)
