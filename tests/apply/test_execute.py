"""Execution against a stand-in cluster: what is skipped, what is sent, what answers mean.

The in-memory fake (tests/fakes/cluster.py, held to Kafka's answers by tests/contract/) records
what apply sends and shows the topics it holds, so the level loop's decisions are checked
without a broker (the real-cluster tests in this directory check the same paths end to end).
"""

from __future__ import annotations

import signal
from collections.abc import Sequence
from typing import cast

import pytest

from reconciler import stopping
from reconciler.apply.execute import batching, wait
from reconciler.apply.execute.dispatch import AlreadyDone, Reassigning, Refused, send
from reconciler.apply.execute.levels import Executor, Options
from reconciler.apply.execute.operations import Operation, Step, levels, operations
from reconciler.apply.record.outcome import Status
from reconciler.cluster.ports import Executing, TopicReader
from reconciler.cluster.protocol.failures import Failure
from reconciler.cluster.protocol.requests import NewTopicRequest
from reconciler.cluster.state import TopicState
from reconciler.planning.changes import Action, CreateTopic, TopicChange
from tests.fakes.cluster import FakeCluster, FakeKafka
from tests.planning.factories import cluster, topic

EXISTS = Failure("TOPIC_ALREADY_EXISTS", "Topic 'a' already exists.")


def create(name: str, **config: str) -> TopicChange:
    change = CreateTopic(name, 1, 1, tuple(sorted(config.items())))
    return TopicChange(name, Action.CREATE, (change,))


def test_a_topic_someone_created_as_planned_is_already_done_but_otherwise_refused() -> None:
    planned = (create("a", **{"retention.ms": "1000"}), create("b", **{"retention.ms": "1000"}))
    kafka = FakeKafka().add(topic("a", overrides={"retention.ms": "1000"}), topic("b"))
    kafka.refuse("a", EXISTS)
    kafka.refuse("b", EXISTS)
    fake = kafka.client()
    ops = operations(planned)
    sent = send(fake, cluster(), Step.CREATE, ops, Reassigning(None, 1.0, 0.0), print)
    assert sent == {
        0: AlreadyDone("the topic already existed as planned"),
        1: Refused(EXISTS),  # same counts, without the planned config: not "already done"
    }


def test_the_level_loop_skips_done_work_refuses_diverged_topics_and_applies_the_rest() -> None:
    state = cluster(
        topic("done", overrides={"retention.ms": "1000"}),
        topic("other"),  # made by someone else, without the planned config
    )
    planned = tuple(create(n, **{"retention.ms": "1000"}) for n in ("done", "new", "other"))
    kafka = FakeKafka().add(*state.topics.values())
    fake = kafka.client()
    ops = operations(planned)
    executor = Executor(fake, state, Options(wait_timeout=1.0, poll_interval=0.0), print)
    results = {r.operation.topic: r for r in executor.run(levels(ops))}
    assert kafka.created == ["new"]
    assert results["done"].status is Status.UNCHANGED
    assert results["new"].status is Status.APPLIED
    assert results["other"].status is Status.FAILED
    assert "other was created with other settings" in results["other"].message


class _Clock:
    """Virtual time for wait.py: sleeping advances it."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def time(self) -> float:
        return self.now


class _Reconnects:
    """reconnected() for the readers below: the same reader (a test sets what fresh ones see)."""

    reconnects = 0

    def reconnected(self) -> _Reconnects:
        self.reconnects += 1
        return self

    def __enter__(self) -> _Reconnects:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class _ShowsSlowly(_Reconnects):
    """A reader whose brokers show one more of the topics every `every` seconds, up to `upto`
    (as three busy brokers showed 20,000 creates: 3,333 within 120 s, the rest later)."""

    def __init__(self, fake: FakeCluster, clock: _Clock, every: float, upto: int) -> None:
        self.fake, self.clock, self.every, self.upto = fake, clock, every, upto

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        everything = sorted(self.fake.read_state().topics)
        shown = set(everything[: min(self.upto, int(self.clock.now // self.every))])
        return {n: t for n, t in self.fake.topics(names, configs=configs).items() if n in shown}


def _five_created(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeKafka, list[Operation], _Clock]:
    """Five topics the fake holds, their creates' operations, and wait.py on a virtual clock."""
    names = [f"t{i}" for i in range(5)]
    kafka = FakeKafka().add(*(topic(n) for n in names))
    clock = _Clock()
    monkeypatch.setattr(wait, "time", clock)
    return kafka, list(operations(tuple(create(n) for n in names))), clock


def test_a_level_the_brokers_keep_showing_more_of_is_waited_for_past_the_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kafka, ops, clock = _five_created(monkeypatch)
    # one more every 50 s: 250 s in all, never 120 s without one more
    steady = cast(TopicReader, _ShowsSlowly(kafka.client(), clock, every=50.0, upto=5))
    assert wait.for_level(steady, Step.CREATE, ops, timeout=120.0, poll_interval=1.0) == {}
    assert clock.now >= 250.0
    # two show, then nothing more: the rest is late 120 s after the last one showed
    clock.now = 0.0
    stalled = cast(TopicReader, _ShowsSlowly(kafka.client(), clock, every=50.0, upto=2))
    late = wait.for_level(stalled, Step.CREATE, ops, timeout=120.0, poll_interval=1.0)
    assert sorted(late) == [2, 3, 4]
    assert 220.0 <= clock.now <= 222.0
    assert "did not show it, nor more of its level, for 120 s" in late[2]


def test_a_long_wait_says_how_much_of_the_level_metadata_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kafka, ops, clock = _five_created(monkeypatch)
    heard: list[str] = []
    steady = cast(TopicReader, _ShowsSlowly(kafka.client(), clock, every=8.0, upto=5))
    late = wait.for_level(steady, Step.CREATE, ops, 120.0, 1.0, heard.append)
    assert late == {}
    # one more every 8 s, told every 10 s until all 5 show at 40 s
    assert heard == [
        "  metadata shows 1 of 5 change(s) after 10 s",
        "  metadata shows 2 of 5 change(s) after 20 s",
        "  metadata shows 3 of 5 change(s) after 30 s",
    ]
    # a level metadata shows at once says nothing
    quiet: list[str] = []
    clock.now = 100.0
    assert wait.for_level(steady, Step.CREATE, ops, 120.0, 1.0, quiet.append) == {}
    assert quiet == []


class _SlowPolls(_Reconnects):
    """A reader each of whose polls takes `took` seconds; the topics show from `shown_at` on."""

    def __init__(self, fake: FakeCluster, clock: _Clock, took: float, shown_at: float) -> None:
        self.fake, self.clock, self.took, self.shown_at = fake, clock, took, shown_at
        self.polls: list[float] = []

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        self.polls.append(self.clock.now)
        self.clock.now += self.took
        shown = self.clock.now >= self.shown_at
        return self.fake.topics(names, configs=configs) if shown else {}


def test_a_slow_poll_waits_three_times_as_long_before_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kafka = FakeKafka().add(topic("t0"))
    ops = operations((create("t0"),))
    clock = _Clock()
    monkeypatch.setattr(wait, "time", clock)
    slow = _SlowPolls(kafka.client(), clock, took=2.0, shown_at=25.0)
    assert wait.for_level(cast(TopicReader, slow), Step.CREATE, ops, 120.0, 1.0) == {}
    # each poll takes 2 s and is followed by 6 s: polls start at 0, 8, 16 and 24 (not every 3 s)
    assert slow.polls == [0.0, 8.0, 16.0, 24.0]
    # a fast poll keeps the poll interval
    clock.now = 0.0
    fast = _SlowPolls(kafka.client(), clock, took=0.0, shown_at=3.0)
    assert wait.for_level(cast(TopicReader, fast), Step.CREATE, ops, 120.0, 1.0) == {}
    assert fast.polls == [0.0, 1.0, 2.0, 3.0]
    # a very slow poll waits at most 30 s before the next
    clock.now = 0.0
    slowest = _SlowPolls(kafka.client(), clock, took=20.0, shown_at=60.0)
    assert wait.for_level(cast(TopicReader, slowest), Step.CREATE, ops, 120.0, 1.0) == {}
    assert slowest.polls == [0.0, 50.0]


class _OneBrokerLags:
    """Brokers of which the first client's lags: it never shows the topics; fresh clients' do."""

    def __init__(self, fake: FakeCluster, lagging: bool = True) -> None:
        self.fake, self.lagging = fake, lagging
        self.fresh = 0
        self.polls = 0

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        self.polls += 1
        return {} if self.lagging else self.fake.topics(names, configs=configs)

    def reconnected(self) -> _OneBrokerLags:
        self.fresh += 1
        return _OneBrokerLags(self.fake, lagging=False)

    def __enter__(self) -> _OneBrokerLags:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_reader_that_shows_no_more_for_5_s_is_replaced_by_fresh_clients(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kafka = FakeKafka().add(topic("t0"), topic("t1"))
    ops = operations((create("t0"), create("t1")))
    monkeypatch.setattr(wait, "time", _Clock())
    lagging = _OneBrokerLags(kafka.client())
    assert wait.for_level(cast(TopicReader, lagging), Step.CREATE, ops, 120.0, 1.0) == {}
    # polls every second on the lagging broker (0 to 5 s); after 5 s without more, fresh ones
    assert (lagging.polls, lagging.fresh) == (6, 1)


class _Recorded(_Reconnects):
    """The fake's client, recording the creates it is sent and the topics it is asked to show."""

    def __init__(self, fake: FakeCluster) -> None:
        self.fake = fake
        self.calls: list[tuple[str, list[str]]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.fake, name)

    def create_topics(self, topics: Sequence[NewTopicRequest]) -> dict[str, Failure | None]:
        self.calls.append(("create", [t.name for t in topics]))
        return self.fake.create_topics(topics)

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        self.calls.append(("show", list(names)))
        return self.fake.topics(names, configs=configs)


def test_creates_past_one_request_go_one_request_at_a_time_as_metadata_shows_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # one topic, one partition, one override: 3 metadata records; 7 records a request
    monkeypatch.setattr(batching, "MAX_RECORDS_PER_REQUEST", 7)
    planned = tuple(create(n, **{"retention.ms": "1000"}) for n in ("a", "b", "c", "d", "e"))
    kafka = FakeKafka()
    recorded = _Recorded(kafka.client())
    heard: list[str] = []
    executor = Executor(
        cast(Executing, recorded), cluster(), Options(wait_timeout=1.0, poll_interval=0.0),
        heard.append,
    )  # fmt: skip
    results = executor.run(levels(operations(planned)))
    assert {r.status for r in results} == {Status.APPLIED}
    # each request is sent once metadata shows the one before it
    asked = [(what, names) for what, names in recorded.calls if names]  # not dispatch's empty look
    assert asked[:6] == [
        ("create", ["a", "b"]), ("show", ["a", "b"]),
        ("create", ["c", "d"]), ("show", ["c", "d"]),
        ("create", ["e"]), ("show", ["e"]),
    ]  # fmt: skip
    assert [line for line in heard if "CreateTopics:" in line] == [
        "  CreateTopics: request 1/3 answered and shown (2 of 5 topic(s) shown)",
        "  CreateTopics: request 2/3 answered and shown (4 of 5 topic(s) shown)",
        "  CreateTopics: request 3/3 answered and shown (5 of 5 topic(s) shown)",
    ]


class _SlowerEachRequest(_Recorded):
    """Brokers that show each CreateTopics request's topics `delays[n]` seconds after the n-th
    request (a cluster that gets slower as it grows)."""

    def __init__(self, fake: FakeCluster, clock: _Clock, delays: list[float]) -> None:
        super().__init__(fake)
        self.clock, self.delays = clock, delays
        self.shown_at: dict[str, float] = {}

    def create_topics(self, topics: Sequence[NewTopicRequest]) -> dict[str, Failure | None]:
        delay = self.delays[len(self.shown_at) // len(topics)]
        self.shown_at |= {t.name: self.clock.now + delay for t in topics}
        return self.fake.create_topics(topics)

    def topics(self, names: Sequence[str], *, configs: bool = False) -> dict[str, TopicState]:
        shown = [n for n in names if self.clock.now >= self.shown_at.get(n, float("inf"))]
        return self.fake.topics(shown, configs=configs)


def _paced(monkeypatch: pytest.MonkeyPatch, delays: list[float], heard: list[str]) -> str:
    """Six creates, two a request, on brokers that show the n-th request `delays[n]` seconds
    after it is sent (a clock of its own); each topic's status, a letter each: A applied, F
    failed, S skipped."""
    from reconciler.apply.execute import levels as levels_module

    monkeypatch.setattr(batching, "MAX_RECORDS_PER_REQUEST", 6)  # two topics a request
    clock = _Clock()
    monkeypatch.setattr(wait, "time", clock)
    monkeypatch.setattr(levels_module, "time", clock)
    planned = tuple(create(n, **{"retention.ms": "1000"}) for n in ("a", "b", "c", "d", "e", "f"))
    slower = _SlowerEachRequest(FakeKafka().client(), clock, delays)
    options = Options(wait_timeout=120.0, poll_interval=1.0)
    executor = Executor(cast(Executing, slower), cluster(), options, heard.append)
    statuses = {r.operation.topic: r.status for r in executor.run(levels(operations(planned)))}
    letters = {Status.APPLIED: "A", Status.FAILED: "F", Status.SKIPPED: "S"}
    return "".join(letters[statuses[t]] for t in "abcdef")


def test_each_paced_request_may_take_three_times_as_long_to_show_as_the_slowest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 100 s, then 250 s (over 120, within 3 x 100), then 500 s (within 3 x 250): all applied
    assert _paced(monkeypatch, [100.0, 250.0, 500.0], []) == "AAAAAA"
    # a fast request does not shorten the next one's wait: 250 s is within 3 x the slowest (100)
    assert _paced(monkeypatch, [100.0, 10.0, 250.0], []) == "AAAAAA"


def test_a_paced_request_that_shows_late_is_waited_for_with_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the second request takes 400 s to show, past its wait (120 s): the third request is sent,
    # and its wait still shows the second's
    heard: list[str] = []
    assert _paced(monkeypatch, [10.0, 400.0, 10.0], heard) == "AAAAAA"
    assert [line for line in heard if "CreateTopics:" in line] == [
        "  CreateTopics: request 1/3 answered and shown (2 of 6 topic(s) shown)",
        "  CreateTopics: request 2/3 answered; 2 accepted but not shown yet, waited for with "
        "the next (2 of 6 topic(s) shown)",
        "  CreateTopics: request 3/3 answered and shown (6 of 6 topic(s) shown)",
    ]
    # not shown by the end of the level's last wait: late, and only those
    assert _paced(monkeypatch, [10.0, 5000.0, 10.0], []) == "AAFFAA"
    assert _paced(monkeypatch, [10.0, 10.0, 5000.0], []) == "AAAAFF"


class _StopsAfter(list[str]):
    """Progress lines, and a stop asked (as by Ctrl-C) once one starts with `line`."""

    def __init__(self, line: str) -> None:
        super().__init__()
        self.line = line

    def append(self, said: str) -> None:
        super().append(said)
        if said.startswith(self.line):
            stopping.ask(signal.SIGINT)


def test_a_stop_between_requests_leaves_no_change_without_a_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the second request's topics are not shown when its wait ends, and a stop comes before the
    # third is sent: they are late (no wait is left to show them), the third's are skipped
    heard = _StopsAfter("  CreateTopics: request 2/3 answered; 2 accepted but not shown yet")
    try:
        assert _paced(monkeypatch, [10.0, 5000.0, 10.0], heard) == "AAFFSS"
    finally:
        stopping.reset()
