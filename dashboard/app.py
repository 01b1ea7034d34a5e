"""Entry script of the dashboard (``streamlit run dashboard/app.py``).

It is the frame of every page: page config, the login (:func:`dashboard.auth.gate`: the dashboard holds
the tenants' tokens), the sidebar with the tenant picker and the connection status
(:func:`dashboard.session.sidebar`), and the navigation between the pages of ``views/``, grouped by what
an accountant opens them for. A new page is one more ``st.Page`` in :data:`PAGES`.

The page scripts are deliberately **not** in a folder named ``pages/``: Streamlit still treats a
``pages/`` folder next to the entry script as a legacy multipage app until some session has called
``st.navigation``, so after a server start the first visit to ``/issue`` would run ``pages/issue.py``
alone, without this frame (no tenant, legacy sidebar).
"""

from __future__ import annotations

import streamlit as st

from connector.config import tenants_path
from dashboard.auth import gate
from dashboard.seeding import banner
from dashboard.session import sidebar

st.set_page_config(page_title="Facturador · Analistas", page_icon="🧾", layout="wide")
# KPI values are shown whole (S/ 8,393,245.67), never cut with an ellipsis
st.html(
    "<style>[data-testid='stMetricValue'] > div {overflow: visible; text-overflow: clip; white-space: nowrap;"
    " font-size: 1.9rem;} [data-testid='stMetricLabel'] p {white-space: normal;}"
    # Streamlit's own English hints under a field ("Press Enter to apply") are hidden: Enter still applies
    " [data-testid='InputInstructions'] {display: none;}"
    # plotly's toolbar (English tooltips) drew over the charts' titles; the chart's full screen stays
    " .js-plotly-plot .modebar-container {display: none;}</style>"
)

PAGES = {
    "Resumen": [
        st.Page("views/home.py", title="Inicio", icon=":material/dashboard:", default=True),
        st.Page("views/documents.py", title="Documentos", icon=":material/table_view:"),
        st.Page("views/periods.py", title="Periodos", icon=":material/calendar_month:"),
        st.Page("views/search.py", title="Buscar", icon=":material/search:"),
    ],
    "Contabilidad": [
        st.Page("views/portfolio.py", title="Cartera de empresas", icon=":material/domain:"),
        st.Page("views/register.py", title="Registro de ventas", icon=":material/menu_book:"),
        st.Page("views/igv.py", title="IGV del mes (621)", icon=":material/calculate:"),
        st.Page("views/receivables.py", title="Cuentas por cobrar", icon=":material/account_balance_wallet:"),
    ],
    "Operaciones": [
        st.Page("views/issue.py", title="Emitir", icon=":material/post_add:"),
        st.Page("views/summaries.py", title="Resúmenes", icon=":material/outbox:"),
        st.Page("views/void.py", title="Anular", icon=":material/block:"),
        st.Page("views/tickets.py", title="Tickets", icon=":material/receipt_long:"),
        st.Page("views/withholding.py", title="Retenciones / Percepciones", icon=":material/percent:"),
        st.Page("views/dispatches.py", title="Guías", icon=":material/local_shipping:"),
    ],
    "Comercial": [
        st.Page("views/customers.py", title="Clientes", icon=":material/group:"),
        st.Page("views/products.py", title="Productos", icon=":material/inventory_2:"),
        st.Page(
            "views/sale_notes.py", title="Notas de venta / Cotizaciones", icon=":material/request_quote:"
        ),
        st.Page("views/commerce.py", title="Análisis comercial", icon=":material/insights:"),
    ],
}

if not gate(st, tenants_path()):
    st.stop()
navigation = st.navigation(PAGES, expanded=True)  # every page listed, never Streamlit's «View 6 more»
sidebar()
banner(st)  # while the demo still seeds its tenant
navigation.run()
