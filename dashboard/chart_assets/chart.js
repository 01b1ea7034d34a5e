// The dashboard's chart (dashboard/charts.py): a plotly figure, as plotly Python's JSON, drawn by
// plotly.js's basic bundle in the page itself (no iframe). The bundle is imported once per tab: an ES
// module is evaluated once however many charts import it, and it leaves `Plotly` on the window.
const plotly = import("./plotly-basic.min.js").then(() => globalThis.Plotly);

const CONFIG = { responsive: true, displaylogo: false };
// Marks the figure's element for the tests and the benchmarks (dashboard/charts.py's MARKER; the chart
// is drawn when it holds traces).
const MARKER = "facturadorChart";

export default async function chart(component) {
  const { parentElement, data } = component;
  let plot = parentElement.querySelector(`[data-testid='${MARKER}']`);
  if (!plot) {
    plot = document.createElement("div");
    plot.dataset.testid = MARKER;
    plot.style.width = "100%";
    parentElement.appendChild(plot);
  }
  const figure = typeof data === "string" ? JSON.parse(data) : data;
  const Plotly = await plotly;
  if (!plot.isConnected) {
    return undefined; // replaced while the bundle loaded
  }
  await Plotly.react(plot, figure.data || [], figure.layout || {}, { ...CONFIG, ...figure.config });
  if (!plot.resizer) {
    // The width follows the container (a column, the sidebar opened or closed), not only the window.
    let width = plot.clientWidth;
    plot.resizer = new ResizeObserver(() => {
      if (plot.clientWidth !== width && plot.clientWidth > 0) {
        width = plot.clientWidth;
        Plotly.Plots.resize(plot);
      }
    });
    plot.resizer.observe(parentElement instanceof ShadowRoot ? parentElement.host : parentElement);
  }
  return () => {
    plot.resizer?.disconnect();
    Plotly.purge(plot);
  };
}
