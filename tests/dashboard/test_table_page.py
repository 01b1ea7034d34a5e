"""A long table shows a page of its lines at a time (``dashboard.widgets.table_page``): all of them when
they fit, else the page picked in a number box, the last page short, the lines captioned."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script(total: int) -> None:
    import streamlit as st

    from dashboard.widgets import table_page

    first, count = table_page(total, key="page", lines=1_000)
    st.write(f"shown {first} {count}")


def _app(total: int) -> AppTest:
    at = AppTest.from_function(_script, args=(total,))
    at.run()
    assert not at.exception, at.exception
    return at


def _shown(at: AppTest) -> str:
    return at.markdown[-1].value


def test_lines_that_fit_are_shown_whole_without_a_picker() -> None:
    for total in (1, 999, 1_000):
        at = _app(total)
        assert _shown(at) == f"shown 0 {total}" and not at.number_input


def test_more_lines_are_shown_a_page_at_a_time() -> None:
    at = _app(2_500)
    assert _shown(at) == "shown 0 1000"
    assert at.number_input[0].label == "Página de la tabla (de 3)"
    assert "Líneas 1 a 1,000 de 2,500" in at.caption[0].value
    at.number_input(key="page").set_value(3).run()
    assert _shown(at) == "shown 2000 500" and "Líneas 2,001 a 2,500 de 2,500" in at.caption[0].value
    at.number_input(key="page").set_value(2).run()
    assert _shown(at) == "shown 1000 1000"
