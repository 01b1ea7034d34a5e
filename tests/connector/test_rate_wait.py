"""What the connector says while it waits for a tenant's rate-limit window (the clock is injected)."""

from __future__ import annotations

from connector.http import RateLimit


def test_a_short_wait_is_never_said_as_zero_seconds() -> None:
    said: list[str] = []
    slept: list[float] = []
    rate = RateLimit(
        window=1.0, limit=3, remaining=1, progress=said.append, sleep=slept.append, clock=lambda: 10.0
    )
    rate.started = 9.3  # 0.7 s of the window gone: 0.35 s to wait (with the 0.05 s margin)
    rate.before()
    assert len(slept) == 1 and abs(slept[0] - 0.35) < 1e-9
    assert said == ["Esperando 1 s: la empresa atiende 3 solicitudes cada 1 s."]


def test_a_wait_of_a_minute_is_said_in_whole_seconds() -> None:
    said: list[str] = []
    rate = RateLimit(
        window=60.0, limit=60, remaining=0, progress=said.append, sleep=lambda _: None, clock=lambda: 100.0
    )
    rate.started = 58.5  # 41.5 s gone: 18.55 s to wait
    rate.before()
    assert said == ["Esperando 19 s: la empresa atiende 60 solicitudes por minuto."]
