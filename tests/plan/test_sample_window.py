"""The window plan watches the deleted topics' log end offsets: 5 s, or $RECONCILER_SAMPLE_MS."""

from __future__ import annotations

import pytest

from reconciler.cluster.evidence import SAMPLE_MS
from reconciler.errors import ConfigError
from reconciler.workflow.plan import sample_window


def test_unset_or_empty_is_the_default_five_seconds() -> None:
    assert SAMPLE_MS == 5000
    assert sample_window({}) == SAMPLE_MS
    assert sample_window({"RECONCILER_SAMPLE_MS": " "}) == SAMPLE_MS


@pytest.mark.parametrize("value", ["100", "200", "60000", "600000"])
def test_a_whole_number_of_milliseconds_in_range_is_the_window(value: str) -> None:
    assert sample_window({"RECONCILER_SAMPLE_MS": value}) == int(value)


@pytest.mark.parametrize("value", ["0", "99", "600001", "5s", "-100", "1.5", "٥٠٠٠"])
def test_anything_else_is_one_sentence_naming_the_variable(value: str) -> None:
    with pytest.raises(ConfigError, match=r"^RECONCILER_SAMPLE_MS=.* from 100 to 600000: ") as e:
        sample_window({"RECONCILER_SAMPLE_MS": value})
    assert "\n" not in str(e.value)
