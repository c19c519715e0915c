"""The table of change kinds (apply/execute/operations.py KINDS) has exactly one row per kind of
the closed Change union: a new kind without its step, ACL and verb fails here."""

from __future__ import annotations

from typing import get_args

import pytest

from reconciler.apply.check.access import needs
from reconciler.apply.execute.operations import KINDS, Operation, step_of
from reconciler.apply.execute.sentences import sentence
from reconciler.cluster.protocol.failures import Failure
from reconciler.planning import changes
from reconciler.planning.changes import Change

# One instance of each kind, to run what reads the table
EXAMPLES: tuple[Change, ...] = (
    changes.CreateTopic("a.b", 3, 1),
    changes.AlterTopicConfig("a.b", (changes.ConfigChange("retention.ms", None, "1000"),)),
    changes.IncreasePartitions("a.b", 3, 6),
    changes.ReassignReplicas("a.b", 1, 3, ((1,),), ((1, 2, 3),)),
    changes.DeleteTopic("a.b", 3, "tombstone"),
)


def test_every_change_kind_has_exactly_one_row() -> None:
    assert set(KINDS) == set(get_args(Change))


def test_the_examples_cover_every_change_kind() -> None:
    assert {type(c) for c in EXAMPLES} == set(get_args(Change))


@pytest.mark.parametrize("change", EXAMPLES, ids=lambda c: type(c).__name__)
def test_step_acl_and_verb_come_from_the_kinds_row(change: Change) -> None:
    kind = KINDS[type(change)]
    assert step_of(change) is kind.step
    op = Operation(0, change.topic, kind.step, change)
    ((acl, resource, why),) = needs([op])
    assert acl == kind.acl
    assert resource == (None if kind.acl_on_cluster else "a.b")
    assert "a.b" in why
    refused = sentence(Failure("A_CODE_WITHOUT_A_SENTENCE", "why"), "a.b", type(change))
    assert f"Kafka refused to {kind.verb} a.b" in refused
