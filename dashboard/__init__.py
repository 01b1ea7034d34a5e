"""The Streamlit dashboard of facturador-kit: documents by date range, charts, and forms to issue.

Run it with ``facturador dashboard`` or ``streamlit run <APP_PATH>``; tenants come from the TOML file of
``FACTURADOR_TENANTS`` (see :mod:`connector.config`). The app talks only to the connector.
"""

from __future__ import annotations

from pathlib import Path

#: The Streamlit entry script (``streamlit run APP_PATH``).
APP_PATH: Path = Path(__file__).resolve().parent / "app.py"

__all__ = ["APP_PATH"]
