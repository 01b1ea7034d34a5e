"""send_policy.next_attempt: after an answer, the one decision of whether and when a document goes again."""

from __future__ import annotations

import datetime as dt

import pytest

from facturador.domain.send_policy import MAX_UNPROVEN_ANSWERS, NextAttempt, next_attempt

NOW = dt.datetime(2026, 3, 2, 15, 30)  # naive UTC: 10:30 in Lima
SETTINGS = {"send_retry_seconds": 60.0}


@pytest.mark.parametrize(("attempts", "wait"), [(1, 60), (2, 120), (3, 240), (6, 1800), (50, 1800)])
def test_a_document_still_owed_is_sent_again_after_the_doubling_wait(attempts: int, wait: int) -> None:
    assert next_attempt(True, attempts, SETTINGS, now=NOW) == NextAttempt(NOW + dt.timedelta(seconds=wait))


def test_a_document_answered_with_a_state_is_not_sent_again() -> None:
    assert next_attempt(False, 1, SETTINGS, now=NOW) == NextAttempt(None, given_up=False)
    assert next_attempt(False, 5, SETTINGS, unproven=MAX_UNPROVEN_ANSWERS, now=NOW) == NextAttempt(None)


def test_unproven_answers_are_retried_until_the_limit_then_given_up() -> None:
    for unproven in range(MAX_UNPROVEN_ANSWERS):
        retry = next_attempt(True, unproven + 1, SETTINGS, unproven=unproven, now=NOW)
        assert retry.at is not None and not retry.given_up
    assert next_attempt(True, 3, SETTINGS, unproven=MAX_UNPROVEN_ANSWERS, now=NOW) == NextAttempt(None, True)
    assert next_attempt(True, 9, SETTINGS, unproven=MAX_UNPROVEN_ANSWERS + 1, now=NOW) == NextAttempt(
        None, True
    )


def test_without_a_clock_it_waits_from_now() -> None:
    before = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    retry = next_attempt(True, 1, SETTINGS)
    assert retry.at is not None and retry.at - before >= dt.timedelta(seconds=60)
