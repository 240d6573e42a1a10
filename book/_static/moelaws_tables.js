// Interactive tables of the book (moelaws/interactive_tables.py renders them as plain HTML
// tables with class "moelaws-dt"). On a page that has one, this module loads the DataTables
// bundle that ships with itables from the book's own static files (vendor/, copied by
// `make vendor`), once, and makes each table sortable, searchable, filterable and paged.
// Drop-down filters are declared by the table (data-moelaws: {"filters": [column indices]});
// a button with data-moelaws-filter='{"table": id, "column name": value, ...}' sets them in
// one click (the reproducibility page's "show discrepancies").
const tables = document.querySelectorAll("table.moelaws-dt");
const base = new URL("./", import.meta.url);

function escapeRegex(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function applyFilter(api, column, value) {
  // An exact match on the cell's text; "" shows every row.
  api.column(column).search(value ? `^${escapeRegex(value)}$` : "", true, false);
}

function addFilters(table, api, columns) {
  if (!columns.length) return;
  const bar = document.createElement("div");
  bar.className = "moelaws-dt-filters";
  for (const index of columns) {
    const name = api.column(index).header().textContent.trim();
    const label = document.createElement("label");
    label.textContent = `${name} `;
    const select = document.createElement("select");
    select.dataset.column = name;
    select.add(new Option("all", ""));
    const values = [...new Set(api.column(index).data().toArray().map((v) => {
      const div = document.createElement("div");
      div.innerHTML = v;
      return div.textContent.trim();
    }).filter((v) => v !== ""))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    for (const value of values) select.add(new Option(value, value));
    select.addEventListener("change", () => {
      applyFilter(api, index, select.value);
      api.draw();
    });
    label.appendChild(select);
    bar.appendChild(label);
  }
  table.closest(".moelaws-dt-figure").querySelector("figcaption").after(bar);
}

function setFilters(spec) {
  const figure = document.getElementById(`${spec.table}-figure`);
  const api = window.moelawsTables[spec.table];
  if (!figure || !api) return;
  for (const select of figure.querySelectorAll(".moelaws-dt-filters select")) {
    const wanted = spec[select.dataset.column] ?? "";
    select.value = wanted;
    const index = api.columns().header().toArray()
      .findIndex((th) => th.textContent.trim() === select.dataset.column);
    applyFilter(api, index, wanted);
  }
  api.search("").draw();
  figure.scrollIntoView({ block: "start" });
}

if (tables.length) {
  // The download links point at the book's _static/download/ whatever the page's depth.
  for (const link of document.querySelectorAll(".moelaws-dt-figure a[data-csv]")) {
    link.href = new URL(`download/${link.dataset.csv}`, base).href;
  }
  const css = document.createElement("link");
  css.rel = "stylesheet";
  css.href = new URL("vendor/dt_bundle.css", base).href;
  document.head.appendChild(css);
  const { default: DataTable } = await import(new URL("vendor/dt_bundle.js", base).href);
  window.moelawsTables = {};
  for (const table of tables) {
    const config = JSON.parse(table.dataset.moelaws || "{}");
    const api = new DataTable(table, {
      pageLength: config.pageLength || 10,
      lengthMenu: [10, 25, 100, { label: "All", value: -1 }],
      order: [],
      autoWidth: false,
      language: { search: "Search:" },
    });
    // Each cell names its column, for the one-card-per-row layout on a phone (CSS attr()).
    const names = api.columns().header().toArray().map((th) => th.textContent.trim());
    for (const row of api.rows().nodes().toArray()) {
      [...row.cells].forEach((td, i) => { td.dataset.label = names[i]; });
    }
    addFilters(table, api, config.filters || []);
    window.moelawsTables[table.id] = api;
  }
  for (const button of document.querySelectorAll("[data-moelaws-filter]")) {
    button.addEventListener("click", () => setFilters(JSON.parse(button.dataset.moelawsFilter)));
  }
  document.documentElement.dataset.moelawsTables = "ready";
}
