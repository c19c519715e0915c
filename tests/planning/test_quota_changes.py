"""A cluster's `quotas:` against what DescribeClientQuotas answered: one change per key of an
entity, in the plan (text, JSON, Markdown); lowering or removing a quota is a hazard only the
cluster's `policy.acknowledge:` approves; an entity the list does not name is removed only
within `policy.manage`; a cluster without `quotas:` has no quota change."""

from __future__ import annotations

import dataclasses

import pytest

from reconciler.cluster.protocol.quotas import ClusterQuotas
from reconciler.planning.json_plan import from_json
from reconciler.planning.plan import Plan, make_plan
from reconciler.planning.refusal import refusal
from reconciler.render.markdown import render_markdown
from reconciler.render.text import render_text
from reconciler.spec.model import Acknowledgment, ClusterConfig, Policy
from reconciler.spec.quotas import ClientQuota, QuotaEntity
from tests.planning.factories import checked_json, cluster, desired

BILLING = QuotaEntity(user="billing")
APP_DEFAULT_CLIENTS = QuotaEntity(user="app", client_id="<default>")
EVERY_CLIENT = QuotaEntity(client_id="<default>")
NONE = Policy()


def _plan(
    want: tuple[ClientQuota, ...] | None, have: tuple[ClientQuota, ...], policy: Policy = NONE
) -> Plan:
    state = dataclasses.replace(cluster(), quotas=ClusterQuotas(have))
    config = ClusterConfig("c", "b:9092", policy=policy, quotas=want)
    return make_plan(desired(), state, config, "x")


def _q(entity: QuotaEntity, **values: float) -> ClientQuota:
    return ClientQuota(entity, tuple(sorted(values.items())))


def test_new_and_raised_quotas_are_changes_without_hazard() -> None:
    plan = _plan(
        (_q(BILLING, producer_byte_rate=2e6, request_percentage=50), _q(EVERY_CLIENT,
         consumer_byte_rate=1e6)),
        (_q(BILLING, producer_byte_rate=1e6),),
    )  # fmt: skip
    assert [(q.entity.text, q.key, q.before, q.after) for q in plan.quotas] == [
        ("client-id=<default>", "consumer_byte_rate", None, 1e6),
        ("user=billing", "producer_byte_rate", 1e6, 2e6),
        ("user=billing", "request_percentage", None, 50),
    ]
    assert plan.applyable and not plan.empty
    text = render_text(plan)
    assert "~ quota user=billing producer_byte_rate: 1000000 -> 2000000" in text
    assert "+ quota client-id=<default> consumer_byte_rate: (none) -> 1000000" in text
    assert "3 quota changes" in text
    assert "`user=billing` `request_percentage`: `(none)` → `50`" in render_markdown(plan)


@pytest.mark.parametrize(
    ("after", "code", "to"), [(5e5, "quota_lower", 500000), (None, "quota_remove", "none")]
)
def test_lowering_or_removing_a_quota_waits_for_the_clusters_approval(
    after: float | None, code: str, to: object
) -> None:
    values = {} if after is None else {"consumer_byte_rate": after}
    want = (_q(APP_DEFAULT_CLIENTS, **values), _q(BILLING, producer_byte_rate=1))
    have = (_q(APP_DEFAULT_CLIENTS, consumer_byte_rate=1048576.5),)
    plan = _plan(want, have)
    (lowered,) = [q for q in plan.quotas if q.entity == APP_DEFAULT_CLIENTS]
    (hazard,) = lowered.hazards
    item = {"key": "user=app,client-id=<default> consumer_byte_rate", "from": "1048576.5",
            "to": str(to)}  # fmt: skip
    assert hazard.code == code and hazard.approve_with == {code: item}
    assert not plan.applyable
    said = refusal(plan)
    assert said is not None and "the cluster's `policy.acknowledge:` in reconciler.yaml" in said
    assert "topic's" not in said
    approved = Policy(acknowledge=(Acknowledgment.of({code: {**item, "from": 1048576.5,
                                                             "to": to}}),))  # fmt: skip
    plan = _plan(want, have, approved)
    assert plan.applyable
    assert not [d for d in plan.diagnostics if d.rule == "acknowledge_stale"]
    # once applied, the approval approves nothing: a warning says to remove it
    done = _plan(want, tuple(q for q in want if q.values), approved)
    assert [d.rule for d in done.diagnostics] == ["acknowledge_stale"]


def test_an_entity_not_listed_is_removed_only_within_policy_manage() -> None:
    have = (_q(QuotaEntity(user="payments-api"), producer_byte_rate=10),
            _q(QuotaEntity(user="other-team"), producer_byte_rate=10),
            _q(QuotaEntity(user="payments-api", client_id="<default>"), producer_byte_rate=10),
            _q(EVERY_CLIENT, producer_byte_rate=10))  # fmt: skip
    everything = _plan((), have)
    assert len(everything.quotas) == 4 and {h.code for q in everything.quotas for h in
                                            q.hazards} == {"quota_remove"}  # fmt: skip
    scoped = _plan((), have, Policy(manage=("^payments-",)))
    assert [q.entity.text for q in scoped.quotas] == [
        "user=payments-api",
        "user=payments-api,client-id=<default>",
    ]


def test_a_cluster_without_quotas_or_a_state_without_them_plans_none() -> None:
    assert _plan(None, (_q(BILLING, producer_byte_rate=1),)).quotas == ()
    config = ClusterConfig("c", "b:9092", quotas=(_q(BILLING, producer_byte_rate=1),))
    assert make_plan(desired(), cluster(), config, "x").quotas == ()  # a snapshot: not read


def test_the_json_plan_holds_the_quota_changes_and_reads_them_back() -> None:
    plan = _plan((_q(EVERY_CLIENT, request_percentage=25.5),),
                 (_q(EVERY_CLIENT, request_percentage=50),))  # fmt: skip
    data = checked_json(plan)  # valid against schemas/plan.schema.json
    assert data["quotas"][0]["entity"] == {"client_id": "<default>"}
    assert (data["quotas"][0]["before"], data["quotas"][0]["after"]) == (50, 25.5)
    assert from_json(data).quotas == plan.quotas
    assert "quotas" not in checked_json(_plan(None, ()))
