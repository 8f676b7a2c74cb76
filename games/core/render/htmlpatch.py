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

import difflib
import itertools
import re
from collections.abc import Sequence

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
# The panels cut lately, by their HTML: an event's panels are the bases of the next event's
# patches (a Seven Gem Swap round draws some 25 panels, seven seats' among them). At most
# 200,000 tokens and tags in all (some 12 MB).
_CUTS: Lru[str, Cut] = Lru(512, weigh=lambda cut: len(cut[0]) + len(cut[1]), budget=200_000)


def _cut(html: str) -> Cut:
    """``html`` as its tokens, its tags (cut at ``>`` only: each a run of tokens) and where each
    tag's tokens start (with the count after them)."""
    kept = _CUTS.get(html)
    if kept is not None:
        return kept
    tags = tuple(_TAG.findall(html))
    # A tag's tokens end at each of its quotes and at its ">"; text after the last tag ends
    # at each quote and, unless it ends with one, at its end.
    counts = [tag.count('"') + 1 for tag in tags]
    if tags and not tags[-1].endswith(">") and tags[-1].endswith('"'):
        counts[-1] -= 1
    cut = tuple(tokens(html)), tags, (0, *itertools.accumulate(counts))
    _CUTS.put(html, cut)
    return cut


def diff(before: str, after: str) -> list[Op]:
    """The operations that turn ``before`` into ``after``: the tags that changed are found first
    (few to match), then each changed tag that kept its shape sends only its changed tokens.
    Only the middle that changed is cut into tokens and tags: the HTML both start and end with,
    whole tags, is found by comparing the texts (a board of 15 KB with three cells changed
    took 0.5 ms when all of it was cut)."""
    if before == after:
        return []
    head = _shared_head(before, after)
    tail = _shared_tail(before, after, head)
    if not head and not tail:
        return _tag_diff(before, after)
    # Every token ends at a ">" or a quote: the head's tokens are counted by them.
    skipped = before.count(">", 0, head) + before.count('"', 0, head)
    middle = _tag_diff(before[head : len(before) - tail], after[head : len(after) - tail])
    return [[start + skipped, count, text] for start, count, text in middle]


def _tag_diff(before: str, after: str) -> list[Op]:
    """``diff`` of two texts cut whole into tokens and tags."""
    old_tokens, old, old_at = _cut(before)
    new_tokens, new, new_at = _cut(after)
    runs: list[tuple[int, int, int, int]] = []
    for i1, i2, j1, j2 in _changed(old, new):
        if i2 - i1 != j2 - j1:
            runs.append((old_at[i1], old_at[i2], new_at[j1], new_at[j2]))
            continue
        for k in range(i2 - i1):
            if old[i1 + k] == new[j1 + k]:
                continue
            o1, o2 = old_at[i1 + k], old_at[i1 + k + 1]
            n1, n2 = new_at[j1 + k], new_at[j1 + k + 1]
            if o2 - o1 != n2 - n1:
                runs.append((o1, o2, n1, n2))
                continue
            runs.extend(
                (o1 + t, o1 + t + 1, n1 + t, n1 + t + 1)
                for t in range(o2 - o1)
                if old_tokens[o1 + t] != new_tokens[n1 + t]
            )
    return _operations(_joined(runs, old_tokens), new_tokens)


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


def _joined(
    runs: list[tuple[int, int, int, int]], old: Sequence[str]
) -> list[tuple[int, int, int, int]]:
    """Neighbouring runs with only a little unchanged HTML between them, made one."""
    joined: list[tuple[int, int, int, int]] = []
    for run in runs:
        if joined:
            i1, i2, j1, _ = joined[-1]
            # Every token has a character at least: more tokens than that are a longer gap.
            near = run[0] - i2 <= JOIN_GAP_CHARS
            if near and sum(len(token) for token in old[i2 : run[0]]) <= JOIN_GAP_CHARS:
                joined[-1] = (i1, run[1], j1, run[3])
                continue
        joined.append(run)
    return joined


def _operations(runs: list[tuple[int, int, int, int]], new: Sequence[str]) -> list[Op]:
    return [[i1, i2 - i1, "".join(new[j1:j2])] for i1, i2, j1, j2 in runs]


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
