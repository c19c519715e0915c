"""report.html, opened in a real browser: Debian's headless Chromium renders it with every
network name unresolvable, its DOM shows each chart's drawn elements, its screenshot holds
their colours, and the numbers the page embeds are the Parquet tables' own.

The screenshot in docs/fleet.md is this test's (UPDATE_GOLDEN=1 writes it):

    UPDATE_GOLDEN=1 .venv/bin/pytest tests/fleet/test_report.py
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops
from pyspark.sql import SparkSession

from reconciler.fleet import charts, report
from reconciler.planning.drift import KINDS
from tests.fleet.conftest import SmallRun

DOCS_SCREENSHOT = Path(__file__).parents[2] / "reconciler" / "docs" / "fleet-report.png"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
WIDTH = 1100


# A load point's fields: the busiest broker's row as the table has it, and the two the page
# takes over every broker of the snapshot
SAME = ("broker", "replicas", "max_broker_partitions", "broker_percent", "cluster_partitions",
        "max_partitions", "cluster_percent", "cluster_days_to_limit")  # fmt: skip
DERIVED = ("broker_days_to_limit", "limit_reached_on")


def embedded(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert found, "report.html has no JSON block"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def rows(spark: SparkSession, out: Path, table: str) -> list[dict[str, Any]]:
    return [r.asDict() for r in spark.read.parquet(str(out / table)).collect()]


def test_the_numbers_the_page_embeds_are_the_parquet_tables(
    spark: SparkSession, small_run: SmallRun
) -> None:
    data = embedded((small_run.out / "report.html").read_text(encoding="utf-8"))
    drift = rows(spark, small_run.out, "drift")
    load = rows(spark, small_run.out, "broker_load")

    counts = Counter((r["cluster"], str(r["date"]), r["kind"]) for r in drift)
    assert {(d["cluster"], d["date"], d["kind"]): d["items"] for d in data["drift"]} == counts
    assert data["dates"] == sorted({str(r["date"]) for r in load})
    assert data["clusters"] == sorted({r["cluster"] for r in load})

    # per snapshot of a cluster with a limit: its busiest broker, the soonest days_to_limit
    snapshots: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in load:
        if r["max_broker_partitions"] is not None or r["max_partitions"] is not None:
            snapshots[(r["cluster"], str(r["date"]))].append(r)
    expected = {}
    for key, brokers in snapshots.items():
        top = max(brokers, key=lambda r: (r["replicas"], -r["broker"]))
        days = [r["days_to_limit"] for r in brokers if r["days_to_limit"] is not None]
        broker_days = min(days) if days else None
        soonest = [d for d in (broker_days, top["cluster_days_to_limit"]) if d is not None]
        reached = top["date"] + datetime.timedelta(days=min(soonest)) if soonest else None
        expected[key] = {
            **{f: top[f] for f in SAME},
            "broker_days_to_limit": broker_days,
            "limit_reached_on": str(reached) if reached else None,
        }
    got = {(x["cluster"], x["date"]): {f: x[f] for f in (*SAME, *DERIVED)} for x in data["load"]}
    assert got == expected
    assert any(x["limit_reached_on"] for x in data["load"]), "no projection to check"

    by_topic: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in drift:
        by_topic[r["topic"]].append(r)
    ranked = sorted(by_topic, key=lambda t: (-len(by_topic[t]), t))[: report.TOP_TOPICS]
    assert [
        (t["topic"], t["items"], t["clusters"], dict(t["by_kind"])) for t in data["top_topics"]
    ] == [
        (t, len(by_topic[t]), len({r["cluster"] for r in by_topic[t]}),
         {k: sum(r["kind"] == k for r in by_topic[t]) for k in KINDS})
        for t in ranked
    ]  # fmt: skip


class Dom(HTMLParser):
    """Each element id inside a chart figure: (chart, tag, paths and images inside it)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.chart: str | None = None
        self.stack: list[tuple[str, str | None]] = []  # (tag, id)
        self.ids: dict[str, tuple[str, str, Counter[str]]] = {}
        self.references: list[str] = []  # every src and href value

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("src", "href", "xlink:href"):
            if found.get(name) is not None:
                self.references.append(str(found[name]))
        if tag == "figure" and found.get("data-chart"):
            self.chart = found["data-chart"]
        ident = found.get("id")
        if self.chart is not None and ident:
            self.ids[ident] = (self.chart, tag, Counter())
        for _, outer in self.stack:
            if outer in self.ids:
                self.ids[outer][2][tag] += 1
        if tag not in ("meta", "br", "img", "link"):  # (void elements: no end tag)
            self.stack.append((tag, ident))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if all(open_tag != tag for open_tag, _ in self.stack):
            return
        while self.stack:
            top, _ = self.stack.pop()
            if top == tag:
                break
        if tag == "figure":
            self.chart = None


def chromium() -> str:
    found = shutil.which("chromium")
    if found is not None:
        return found
    if os.environ.get("CI"):
        pytest.fail("Debian's chromium is not installed: .ci/run installs it with apt-get")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium; CI installs it)")


def browse(page: Path, profile: Path, *args: str) -> str:
    """Chromium, headless, on `page` with no network: every host name fails to resolve."""
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", f"--user-data-dir={profile}", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--proxy-server=127.0.0.1:9", *args, page.as_uri()],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_report_html_opens_offline_in_headless_chromium_with_every_chart_drawn(
    small_run: SmallRun, tmp_path: Path
) -> None:
    page = small_run.out / "report.html"
    data = embedded(page.read_text(encoding="utf-8"))
    dom = Dom()
    dom.feed(browse(page, tmp_path / "profile", "--dump-dom"))

    # self-contained: nothing the page refers to lies outside it
    assert dom.references, "no inline image found"
    assert all(r.startswith(("data:", "#")) for r in dom.references), dom.references

    def drawn(ident: str, chart: str) -> None:
        assert ident in dom.ids, f"{ident} is not in the rendered page"
        where, _, content = dom.ids[ident]
        assert where == chart and content["path"] > 0, (ident, where, content)

    by_date_kind: Counter[tuple[str, str]] = Counter()
    for d in data["drift"]:
        by_date_kind[(d["date"], d["kind"])] += d["items"]
    assert by_date_kind
    for (day, kind), items in by_date_kind.items():
        assert items > 0
        drawn(f"bar-{kind}-{day}", "drift-by-kind")
    assert dom.ids["cluster-grid"][:2] == ("drift-by-cluster", "image")  # an inline PNG
    limited = {x["cluster"] for x in data["load"]}
    assert limited
    for cluster in sorted(limited)[: report.LOAD_LINES]:
        drawn(f"load-{cluster}", "broker-load")
    drawn("limit", "broker-load")
    assert data["top_topics"]
    for topic in data["top_topics"]:
        for kind, items in topic["by_kind"]:
            if items:
                drawn(f"topic-{kind}-{topic['topic']}", "top-topics")

    # the screenshot: the browser painted each kind's bars in its colour, and the limit line
    shot = tmp_path / "report.png"
    browse(page, tmp_path / "profile", f"--screenshot={shot}", f"--window-size={WIDTH},3200")
    with Image.open(shot) as image:
        rgb = image.convert("RGB")
        painted = {
            colour
            for _, colour in rgb.getcolors(maxcolors=1 << 20) or ()
            if isinstance(colour, tuple)
        }
        for index, kind in enumerate(KINDS):
            if any(k == kind for _, k in by_date_kind):
                assert _rgb(charts.colour(index)) in painted, f"no {kind} bars on the screenshot"
        # the limit line: antialiased, but its core is red
        assert any(r > 150 and g < 60 and b < 60 for r, g, b in painted), "no limit line drawn"
        if UPDATE:
            _save_for_docs(rgb)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    value = hex_colour.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def _save_for_docs(image: Image.Image) -> None:
    """The screenshot cropped to the page's content and reduced to a palette: the wheel ships
    docs/, so it stays small."""
    white = Image.new("RGB", image.size, (255, 255, 255))
    box = ImageChops.difference(image, white).getbbox()
    cropped = image.crop((0, 0, image.width, (box[3] + 20) if box else image.height))
    small = cropped.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    small.save(DOCS_SCREENSHOT, optimize=True)
    assert DOCS_SCREENSHOT.stat().st_size < 200_000, DOCS_SCREENSHOT.stat().st_size


@pytest.mark.parametrize("dates", [(), ("2026-11-01",)])
def test_a_fleet_without_drift_or_limits_still_gets_every_section(
    dates: tuple[str, ...], recwarn: pytest.WarningsRecorder
) -> None:
    page = report.page(report.ReportData(dates, ("a",) if dates else (), (), (), ()))
    for chart in ("drift-by-kind", "drift-by-cluster", "broker-load", "top-topics"):
        assert f'data-chart="{chart}"><svg' in page
    assert "no cluster differs from its specs" in page
    assert "no cluster sets a limit" in page
    assert embedded(page)["drift"] == []
    assert not [w for w in recwarn if "matplotlib" in str(w.filename) or "charts" in w.filename]


@pytest.mark.parametrize(("days", "shown"), [(10, "2026-03-01"), (19_930_000, None)])
def test_a_projected_date_past_the_calendar_is_no_date(days: int, shown: str | None) -> None:
    load = report.Load(
        cluster="c", date="2026-02-19", broker=1, replicas=63, max_broker_partitions=None,
        broker_percent=None, broker_days_to_limit=None, cluster_partitions=70,
        max_partitions=20_000, cluster_percent=0.4, cluster_days_to_limit=days,
    )  # fmt: skip
    assert load.limit_reached_on == shown
