"""The Documents page builds its figures once per loaded range and filters, not on every rerun."""

from __future__ import annotations

from dashboard.data import empty_documents
from dashboard.session import MEMO_ENTRIES, Loaded


def test_a_loaded_range_builds_each_view_once() -> None:
    got = Loaded(empty_documents(), {})
    calls: list[int] = []

    def build(n: int) -> list[int]:
        calls.append(n)
        return [n]

    first = got.memo(("documents", 1), lambda: build(1))
    assert got.memo(("documents", 1), lambda: build(99)) is first and calls == [1]
    for n in range(2, MEMO_ENTRIES + 2):
        got.memo(("documents", n), lambda n=n: build(n))  # type: ignore[misc]
    assert got.memo(("documents", 1), lambda: build(1)) == [1] and calls.count(1) == 2  # evicted, rebuilt
    assert Loaded(empty_documents(), {}).memo(("documents", 1), lambda: build(7)) == [7]  # per range


def test_the_frame_is_built_only_when_a_page_reads_it() -> None:
    """Inicio reads only the sales of a year of documents: their DataFrame is not built for it."""
    built: list[int] = []

    def frame():  # type: ignore[no-untyped-def]
        built.append(1)
        return empty_documents()

    got = Loaded(frame, {})
    assert got.all_sales == [] and built == []
    assert got.frame is got.frame and built == [1]
