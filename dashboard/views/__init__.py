"""Page scripts of the dashboard, run by ``st.navigation`` from ``app.py`` (not importable modules)."""
