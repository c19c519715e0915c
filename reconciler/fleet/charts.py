"""The report's charts, drawn with matplotlib as inline SVG (pure: values in, markup out).

SVG keeps the page small and self-contained: no JavaScript, text as text (the browser's own
sans-serif font), the per-cluster grid as one embedded PNG. The elements that carry the data
have ids (`gid`) naming what they draw (`bar-config-2026-11-02`, `load-prod-eu`, ...), so a
test finds them in the page's DOM.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# A line of the load chart: (cluster, [(date, percent of its limit)], the date it reaches it)
Series = tuple[str, list[tuple[str, float]], str | None]

_RC: dict[Any, Any] = {
    "svg.fonttype": "none",  # text stays text: smaller, and searchable on the page
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_PROJECTION_DAYS = 366  # a limit reached later than this after the last date is not drawn
_PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
            "#ff9da7", "#9c755f", "#bab0ac")  # fmt: skip

P = ParamSpec("P")


def colour(index: int) -> str:
    """The colour of the index-th kind (or cluster) in every chart."""
    return _PALETTE[index % len(_PALETTE)]


def _styled(draw: Callable[P, str]) -> Callable[P, str]:
    """`draw` under the report's matplotlib settings (read as each artist is made and saved)."""

    @wraps(draw)
    def styled(*args: P.args, **kwargs: P.kwargs) -> str:
        import matplotlib

        with matplotlib.rc_context(_RC):
            return draw(*args, **kwargs)

    return styled


@_styled
def drift_by_kind(
    dates: Sequence[str], kinds: Sequence[str], items: Mapping[tuple[str, str], int]
) -> str:
    """Stacked bars: drift items per date, by kind."""
    fig, ax = _figure(9.0, 3.4)
    bottom = [0] * len(dates)
    for index, kind in enumerate(kinds):
        heights = [items.get((day, kind), 0) for day in dates]
        bars = ax.bar(dates, heights, bottom=bottom, label=kind, color=colour(index))
        for bar, day, height in zip(bars, dates, heights, strict=True):
            bar.set_gid(f"bar-{kind}-{day}" if height else None)
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    ax.set_ylabel("drift items")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.tick_params(axis="x", labelrotation=45 if len(dates) > 6 else 0)
    return _svg(fig, "drift-by-kind")


@_styled
def drift_by_cluster(
    dates: Sequence[str], clusters: Sequence[str], grid: Sequence[Sequence[int | None]]
) -> str:
    """A grid of clusters by dates, coloured by drift items (blank: no snapshot)."""
    import numpy as np

    fig, ax = _figure(9.0, 1.2 + 0.22 * max(len(clusters), 1))
    if not clusters or not dates:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "no cluster differs from its specs", ha="center", va="center")
        return _svg(fig, "drift-by-cluster")
    values = np.array(
        [[np.nan if v is None else v for v in row] for row in grid] or [[np.nan] * len(dates)],
        dtype=float,
    )
    image = ax.imshow(values, aspect="auto", cmap="Oranges", interpolation="nearest")
    image.set_gid("cluster-grid")
    ax.set_yticks(range(len(clusters)), list(clusters))
    ax.set_xticks(range(len(dates)), list(dates))
    ax.tick_params(axis="x", labelrotation=45)
    if len(dates) * len(clusters) <= 400:  # numbers in the cells while they stay readable
        top = np.nanmax(values) if np.isfinite(values).any() else 0
        for y, row in enumerate(grid):
            for x, v in enumerate(row):
                if v is not None:
                    dark = v > top * 0.6
                    ax.text(x, y, str(v), ha="center", va="center", fontsize=7,
                            color="white" if dark else "black")  # fmt: skip
    fig.colorbar(image, ax=ax, label="drift items", pad=0.01)
    return _svg(fig, "drift-by-cluster")


@_styled
def broker_load(dates: Sequence[str], series: Sequence[Series]) -> str:
    """Each cluster's load as a percent of its limit over the dates, the limit at 100%, and a
    dashed line from the last point to the date the trend reaches it (within a year)."""
    import numpy as np

    fig, ax = _figure(9.0, 3.8)
    last = np.datetime64(dates[-1], "D") if dates else None
    end = last  # the axis's last day: the last snapshot, or the furthest projection drawn
    for index, (cluster, points, reached) in enumerate(series):
        line = colour(index)
        xs = np.array([d for d, _ in points], dtype="datetime64[D]")
        ys = [p for _, p in points]
        ax.plot(xs, ys, marker="o", markersize=3, color=line, label=cluster,
                gid=f"load-{cluster}")  # fmt: skip
        if reached is None or last is None or not len(xs) or ys[-1] >= 100:
            continue
        when = np.datetime64(reached, "D")
        if when - last <= np.timedelta64(_PROJECTION_DAYS, "D"):
            end = max(end, when) if end is not None else when
            ax.plot(np.array([xs[-1], when]), [ys[-1], 100], linestyle="--", color=line,
                    gid=f"projection-{cluster}")  # fmt: skip
            ax.annotate(reached, (when, 100), textcoords="offset points", xytext=(0, 4),
                        ha="center", fontsize=7, color=line)  # fmt: skip
    ax.axhline(100, color="#b00", linewidth=2, gid="limit")
    ax.set_ylabel("% of the limit")
    if series:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    else:
        ax.text(0.5, 0.5, "no cluster sets a limit", transform=ax.transAxes, ha="center")
    if dates and last is not None:
        _day_ticks(ax, np.datetime64(dates[0], "D"), end)
    fig.autofmt_xdate()
    return _svg(fig, "broker-load")


@_styled
def top_topics(
    topics: Sequence[tuple[str, int]], kinds: Sequence[str], by_kind: Sequence[Mapping[str, int]]
) -> str:
    """Horizontal stacked bars: drift items per topic (most first), by kind."""
    fig, ax = _figure(9.0, 1.0 + 0.28 * max(len(topics), 1))
    labels = [f"{name} ({clusters} cluster{'s' if clusters != 1 else ''})"
              for name, clusters in topics]  # fmt: skip
    left = [0] * len(topics)
    for index, kind in enumerate(kinds):
        widths = [counts.get(kind, 0) for counts in by_kind]
        if any(widths):
            bars = ax.barh(labels, widths, left=left, label=kind, color=colour(index))
            for bar, (name, _), width in zip(bars, topics, widths, strict=True):
                bar.set_gid(f"topic-{kind}-{name}" if width else None)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("drift items (every cluster and date)")
    if topics:
        ax.legend(loc="lower right", frameon=False)
    return _svg(fig, "top-topics")


def _day_ticks(ax: Axes, first: Any, last: Any) -> None:
    """Ticks on whole days from `first` to `last` (numpy days), about eight of them however
    long the axis (a projection may run months past the snapshots), labelled as dates."""
    import numpy as np

    step = max(1, round(int((last - first) / np.timedelta64(1, "D")) / 8))
    ticks = np.arange(first, last + np.timedelta64(1, "D"), np.timedelta64(step, "D"))
    ax.set_xticks(ticks, [str(t) for t in ticks])


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure  # no pyplot: no global state, no GUI backend

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.add_subplot()


def _svg(fig: Figure, chart: str) -> str:
    """The figure as an <svg> element. Its generated ids (clip paths) are salted with the
    chart's name: stable from run to run, and distinct between the page's charts."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"reconciler-{chart}"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg") :]  # inline: no XML prolog or DOCTYPE
