/* Embeds the book's Altair charts so that they fit the text column, on a laptop and on a phone.
 *
 * moelaws.charts writes, for every chart, a <div class="moelaws-vega"> and a call to
 * moelawsEmbed(id, spec). Charts are specified at their natural size; here a chart wider than
 * its column is laid out again with every width scaled down (axes, legends and padding keep
 * their size), and on a narrow screen side-by-side panels are stacked. The layout is redone,
 * not scaled with CSS, so that tooltips and selections stay where the pointer is. Each chart's
 * SVG gets an accessible name: the spec's description, or else its figure's caption.
 */
(function () {
  "use strict";
  var NARROW = 600;

  function clone(x) { return JSON.parse(JSON.stringify(x)); }

  // Panels side by side become one column on a narrow screen.
  function stack(spec) {
    var s = clone(spec);
    if (Array.isArray(s.hconcat)) { s.vconcat = s.hconcat; delete s.hconcat; }
    if (Array.isArray(s.concat)) { s.columns = 1; }
    if (s.facet && s.facet.column && !s.facet.row) { s.facet = {row: s.facet.column}; }
    if (s.facet && s.facet.field) { s.columns = 1; }
    if (s.encoding && s.encoding.column && !s.encoding.row) {
      s.encoding.row = s.encoding.column; delete s.encoding.column;
    }
    if (s.encoding && s.encoding.facet) { s.encoding.facet.columns = 1; }
    return s;
  }

  // Multiply every numeric width (and width step) of a spec by `ratio`.
  function scaleWidths(spec, ratio) {
    if (Array.isArray(spec)) { spec.forEach(function (x) { scaleWidths(x, ratio); }); return; }
    if (!spec || typeof spec !== "object") { return; }
    Object.keys(spec).forEach(function (key) {
      var v = spec[key];
      if (key === "width" && typeof v === "number") {
        spec[key] = Math.max(40, Math.floor(v * ratio));
      } else if (key === "width" && v && typeof v.step === "number") {
        v.step = Math.max(2, v.step * ratio);
      } else if (key !== "data" && key !== "datasets" && typeof v === "object") {
        scaleWidths(v, ratio);
      }
    });
  }

  // Sum of the plot widths across one row of panels (what scaling can shrink).
  function innerWidth(spec) {
    if (!spec || typeof spec !== "object") { return 0; }
    if (Array.isArray(spec.hconcat)) {
      return spec.hconcat.reduce(function (a, s) { return a + innerWidth(s); }, 0);
    }
    if (Array.isArray(spec.vconcat) || Array.isArray(spec.layer)) {
      var parts = spec.vconcat || spec.layer, own = typeof spec.width === "number" ? spec.width : 0;
      return Math.max(own, parts.reduce(function (a, s) { return Math.max(a, innerWidth(s)); }, 0));
    }
    if (Array.isArray(spec.concat)) {
      var cols = spec.columns || spec.concat.length, sum = 0;
      spec.concat.slice(0, cols).forEach(function (s) { sum += innerWidth(s); });
      return sum;
    }
    if (spec.spec) { return innerWidth(spec.spec) * (spec.columns || 1); }
    return typeof spec.width === "number" ? spec.width : 0;
  }

  function svgOf(el) { return el.querySelector("svg"); }

  // The chart's accessible name: its spec's description, or else its figure's caption.
  function describe(el, spec) {
    if (spec.description) { return spec; }
    var figure = el.closest("figure");
    var caption = figure && figure.querySelector("figcaption");
    var text = caption ? caption.textContent.replace(/\s+/g, " ").trim() : "";
    if (!text) { return spec; }
    var described = clone(spec);
    described.description = text;
    return described;
  }

  function label(el, spec) {
    var svg = svgOf(el);
    if (svg && spec.description && !svg.getAttribute("aria-label")) {
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", spec.description);
    }
  }

  function embed(el, spec) {
    return vegaEmbed(el, spec, {renderer: "svg", actions: false});
  }

  // Lay the chart out again, narrower, until it fits its column (at most three times).
  function shrink(el, spec, result, tries) {
    var svg = svgOf(el), avail = el.clientWidth;
    var width = svg ? svg.getBoundingClientRect().width : 0;
    var inner = innerWidth(spec);
    if (!(width > avail + 1) || inner <= 0 || tries === 0) { return Promise.resolve(result); }
    var fixed = Math.max(0, width - inner);
    var ratio = Math.max(0.2, (avail - fixed - 2) / inner);
    var smaller = clone(spec);
    scaleWidths(smaller, ratio);
    result.finalize();
    el.innerHTML = "";
    return embed(el, smaller).then(function (next) { return shrink(el, smaller, next, tries - 1); });
  }

  function fit(el, spec) {
    spec = describe(el, spec);
    var s = el.clientWidth < NARROW ? stack(spec) : spec;
    return embed(el, s).then(function (result) {
      return shrink(el, s, result, 3);
    }).then(function (result) {
      var svg = svgOf(el);
      if (svg && svg.getBoundingClientRect().width > el.clientWidth + 1) {
        el.classList.add("moelaws-vega-scaled");
      }
      label(el, spec);
      el.setAttribute("data-moelaws-rendered", "1");
      return result;
    });
  }

  function run(id, spec) {
    var el = document.getElementById(id);
    if (!el) { return; }
    fit(el, spec).catch(function (err) {
      el.innerHTML = "<pre class='moelaws-vega-error'>" + String(err) + "</pre>";
      console.error(err);
    });
  }

  // A chart's script runs where the chart is, before its caption (which follows it) is
  // parsed: wait for the whole page.
  window.moelawsEmbed = function (id, spec) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", function () { run(id, spec); });
    } else {
      run(id, spec);
    }
  };
})();
