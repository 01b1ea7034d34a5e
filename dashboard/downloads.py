"""Download buttons for a document's or a ticket's files (XML, PDF, CDR), shared by every page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from connector import FacturadorError

#: kind -> (label, file name pattern, MIME type, icon)
FILES: dict[str, tuple[str, str, str, str]] = {
    "xml": ("XML", "{name}.xml", "application/xml", ":material/code:"),
    "pdf": ("PDF", "{name}.pdf", "application/pdf", ":material/picture_as_pdf:"),
    "cdr": ("CDR", "R-{name}.zip", "application/zip", ":material/verified:"),
}


def safe(fetch: Callable[[], bytes]) -> Callable[[], bytes]:
    """A download callable that never raises: Streamlit runs it outside the script, where an exception
    would be lost; a failure becomes the text of the downloaded file."""

    def run() -> bytes:
        try:
            return fetch()
        except FacturadorError as exc:  # pragma: no cover - exercised in the browser only
            return f"No se pudo descargar: {exc.message}".encode()

    return run


def download_button(
    place: Any,
    kind: str,
    fetch: Callable[[], bytes],
    *,
    name: str,
    key: str,
    disabled: bool = False,
    help: str | None = None,
    width: str = "content",
) -> None:
    """A download button of ``kind`` ("xml", "pdf" or "cdr") in ``place`` (a column or ``st``); the file
    is fetched only when the user clicks."""
    label, pattern, mime, icon = FILES[kind]
    place.download_button(
        label,
        data=safe(fetch),
        file_name=pattern.format(name=name),
        mime=mime,
        icon=icon,
        on_click="ignore",
        key=key,
        disabled=disabled,
        help=help,
        width=width,
    )
