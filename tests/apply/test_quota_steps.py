"""Apply's client quota step (apply/execute/quota_steps.py): what the cluster already shows is
not sent again, every change goes in one request, a refused entity fails the apply, and the
apply's summary does not say "No changes" when it changed quotas alone."""

from __future__ import annotations

from reconciler.apply.execute import quota_steps
from reconciler.apply.record.results import ApplyResult
from reconciler.cluster.protocol.failures import Failure
from reconciler.planning.quota_changes import QuotaChange
from reconciler.render.apply_report import apply_lines
from reconciler.spec.quotas import QuotaEntity
from tests.fakes.cluster import FakeCluster, FakeKafka

BILLING, BATCH = QuotaEntity(user="billing"), QuotaEntity(user="batch", client_id="<default>")
CHANGES = (
    QuotaChange(BILLING, "producer_byte_rate", None, 1e6),
    QuotaChange(BILLING, "request_percentage", 80.0, None),
    QuotaChange(BATCH, "consumer_byte_rate", 4e6, 2e6),
)


def test_what_the_cluster_shows_is_not_sent_and_the_rest_goes_in_one_request() -> None:
    kafka = FakeKafka()
    kafka.quotas = {BILLING: {"request_percentage": 80.0}, BATCH: {"consumer_byte_rate": 2e6}}
    cluster = FakeCluster(kafka)
    left = quota_steps.remaining(CHANGES, cluster.quotas())
    assert [(a.entity, a.key, a.value) for a in left] == [
        (BILLING, "producer_byte_rate", 1e6),
        (BILLING, "request_percentage", None),
    ]
    said: list[str] = []
    assert quota_steps.run(cluster, left, said.append) == []
    assert kafka.sent.count("alter_quotas") == 1
    assert kafka.quotas[BILLING] == {"producer_byte_rate": 1e6}
    assert said == ["changed the client quotas of 1 entity"]
    assert quota_steps.remaining(CHANGES, cluster.quotas()) == ()


def test_a_refused_entity_is_one_line_and_fails_the_apply() -> None:
    kafka = FakeKafka()
    kafka.refused["user=batch,client-id=<default>"] = Failure("CLUSTER_AUTHORIZATION_FAILED", "")
    said: list[str] = []
    alterations = [c.alteration for c in CHANGES]
    refused = quota_steps.run(FakeCluster(kafka), alterations, said.append)
    assert refused == [
        "could not change the quotas of user=batch,client-id=<default>: "
        "CLUSTER_AUTHORIZATION_FAILED"
    ]
    assert BATCH not in kafka.quotas or not kafka.quotas[BATCH]
    result = ApplyResult("c", "h", (), None, besides=3, refused=tuple(refused))
    assert not result.ok
    (line,) = [str(line.text) for line in apply_lines(result, "c", None)]
    assert line == "Apply incomplete: 3 ACL, client quota or SCRAM user change(s) sent, 1 refused."
    done = ApplyResult("c", "h", (), None, besides=3)
    assert done.ok
    assert "No changes" not in str(apply_lines(done, "c", None)[0].text)
