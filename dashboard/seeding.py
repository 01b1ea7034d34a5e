"""The demo's seeding, seen from the dashboard: ``facturador demo`` starts the dashboard at once and seeds
its tenant beside it, keeping how far it got in a small JSON file (:func:`write_progress`) whose path it
gives the dashboard in ``FACTURADOR_SEEDING_PROGRESS``; every page then shows a banner with that progress
(:func:`banner`) until the seeding ends and the file is removed."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The environment variable that names the progress file (set by ``facturador demo`` for the dashboard).
PROGRESS_ENV = "FACTURADOR_SEEDING_PROGRESS"
#: The seeding's phases (named by :func:`demo.seeding.seed`), as the dashboard says them.
STAGES = {
    "Issuing": "emitiendo documentos",
    "Declaring": "declarando boletas en resúmenes diarios",
    "Voiding": "anulando documentos",
}


@dataclass(frozen=True)
class Progress:
    """How far a seeding run got: ``done`` of ``total`` documents issued, in phase ``stage``."""

    stage: str
    done: int
    total: int

    def describe(self) -> str:
        """The banner's text, in the dashboard's Spanish."""
        stage = STAGES.get(self.stage, self.stage.lower() or "cargando")
        return (
            f"La demo aún está cargando sus datos ({stage}: {self.done:,} de {self.total:,} documentos). "
            "Las páginas muestran lo emitido hasta ahora; vuelva a cargarlas para ver más."
        )


def write_progress(path: Path, progress: Progress) -> None:
    """Keep ``progress`` in ``path`` (replaced whole, so a reader never sees half a file; its owner's
    only, as everything in the data directory)."""
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # in the data directory
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(json.dumps(vars(progress)))
    partial.replace(path)


def read_progress(path: Path) -> Progress | None:
    """The progress kept in ``path``; ``None`` when there is none (the seeding ended or never ran)."""
    try:
        values: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return Progress(str(values["stage"]), int(values["done"]), int(values["total"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def banner(st: Any) -> None:
    """Show the demo's seeding progress above the page while it seeds (nothing otherwise)."""
    where = os.environ.get(PROGRESS_ENV)
    progress = read_progress(Path(where)) if where else None
    if progress is not None:
        st.info(progress.describe(), icon=":material/hourglass_top:")
