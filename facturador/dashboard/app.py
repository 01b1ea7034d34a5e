"""Entry script of the dashboard (``streamlit run facturador/dashboard/app.py``).

It is the frame of every page: page config, the sidebar with the tenant picker and the connection status
(:func:`facturador.dashboard.session.sidebar`), and the navigation between the pages of ``views/``.

The page scripts are deliberately **not** in a folder named ``pages/``: Streamlit still treats a
``pages/`` folder next to the entry script as a legacy multipage app until some session has called
``st.navigation``, so after a server start the first visit to ``/issue`` would run ``pages/issue.py``
alone, without this frame (no tenant, legacy sidebar).
"""

from __future__ import annotations

import streamlit as st

from facturador.dashboard.session import sidebar

st.set_page_config(page_title="Facturador · Analistas", page_icon="🧾", layout="wide")

navigation = st.navigation(
    [
        st.Page("views/documents.py", title="Documentos", icon=":material/table_view:", default=True),
        st.Page("views/issue.py", title="Emitir", icon=":material/post_add:"),
        st.Page("views/summaries.py", title="Resúmenes", icon=":material/outbox:"),
        st.Page("views/void.py", title="Anular", icon=":material/block:"),
        st.Page("views/tickets.py", title="Tickets", icon=":material/receipt_long:"),
    ]
)
sidebar()
navigation.run()
