// The per-query explorer and the judge evidence of a ragmeter report. The data come from the
// JSON block of the page; every value is put into the page as text (textContent), never as
// HTML, so that a query id or a context holding markup is shown, not run.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-data").textContent);
  var PAGE = 200;

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function fmt(v) {
    return v === null || v === undefined || Number.isNaN(v) ? "–" : v.toFixed(4);
  }

  function explorer(root, block) {
    var state = { metric: block.metrics[0], sort: "delta", ascending: true, filter: "", shown: PAGE };
    var controls = el("div", null, "controls");
    var metric = el("select");
    metric.setAttribute("data-role", "metric");
    block.metrics.forEach(function (m) { var o = el("option", m); o.value = m; metric.appendChild(o); });
    var search = el("input");
    search.type = "search";
    search.placeholder = "query id contains…";
    search.setAttribute("data-role", "filter");
    var counts = el("span", null, "note");
    counts.setAttribute("data-role", "counts");
    controls.appendChild(el("label", "metric "));
    controls.appendChild(metric);
    controls.appendChild(search);
    controls.appendChild(counts);
    root.appendChild(controls);
    var table = el("table");
    table.setAttribute("data-role", "per-query");
    root.appendChild(table);
    var more = el("button", "show more");
    more.setAttribute("data-role", "more");
    root.appendChild(more);

    var baseline = block.baseline;
    var others = block.systems.filter(function (s) { return s !== baseline; });
    function diff(row, s) {
      var a = row.values[s], b = row.values[baseline];
      return a === null || b === null || a === undefined || b === undefined ? null : a - b;
    }
    function rows() {
      var values = block.values[state.metric];
      var out = [];
      block.queries.forEach(function (q, i) {
        if (state.filter && q.indexOf(state.filter) < 0) return;
        var row = { query: q, values: {}, delta: null };
        block.systems.forEach(function (s) { row.values[s] = values[s][i]; });
        if (baseline !== null && others.length) {
          var ds = others.map(function (s) {
            var a = values[s][i], b = values[baseline][i];
            return a === null || b === null ? null : a - b;
          }).filter(function (d) { return d !== null; });
          row.delta = ds.length ? Math.min.apply(null, ds) : null;
        }
        out.push(row);
      });
      var key = state.sort;
      out.sort(function (x, y) {
        var a, b;
        if (key === "query") { a = x.query; b = y.query; }
        else if (key === "delta") { a = x.delta; b = y.delta; }
        else if (key.indexOf("d:") === 0) { a = diff(x, key.slice(2)); b = diff(y, key.slice(2)); }
        else { a = x.values[key.slice(2)]; b = y.values[key.slice(2)]; }
        if (a === b) return x.query < y.query ? -1 : x.query > y.query ? 1 : 0;
        if (a === null) return 1;
        if (b === null) return -1;
        var c = a < b ? -1 : 1;
        return state.ascending ? c : -c;
      });
      return out;
    }
    function header(label, key) {
      var th = el("th", label, "sortable" + (key === "query" ? " text" : ""));
      th.setAttribute("data-sort", key);
      th.addEventListener("click", function () {
        if (state.sort === key) state.ascending = !state.ascending;
        else { state.sort = key; state.ascending = key === "query" || key === "delta" || key.indexOf("d:") === 0; }
        render();
      });
      return th;
    }
    function render() {
      var all = rows();
      table.textContent = "";
      var head = el("tr");
      head.appendChild(header("query", "query"));
      block.systems.forEach(function (s) { head.appendChild(header(s, "v:" + s)); });
      if (baseline !== null && others.length) {
        others.forEach(function (s) { head.appendChild(header(s + " − " + baseline, "d:" + s)); });
        head.appendChild(header("worst Δ", "delta"));
      }
      table.appendChild(head);
      var values = block.values[state.metric];
      all.slice(0, state.shown).forEach(function (row) {
        var tr = el("tr");
        tr.appendChild(el("td", row.query, "text"));
        block.systems.forEach(function (s) { tr.appendChild(el("td", fmt(row.values[s]))); });
        if (baseline !== null && others.length) {
          others.forEach(function (s) {
            var a = row.values[s], b = row.values[baseline];
            var d = a === null || b === null ? null : a - b;
            tr.appendChild(el("td", d === null ? "–" : (d > 0 ? "+" : "") + d.toFixed(4),
              d === null || d === 0 ? "" : d < 0 ? "worse" : "better"));
          });
          tr.appendChild(el("td", row.delta === null ? "–" : row.delta.toFixed(4)));
        }
        table.appendChild(tr);
      });
      more.style.display = all.length > state.shown ? "" : "none";
      var text = all.length + " of " + block.queries.length + " queries shown by the filter";
      if (baseline !== null) {
        text += "; against " + baseline + ": " + others.map(function (s) {
          var w = 0, t = 0, l = 0;
          block.queries.forEach(function (q, i) {
            var a = values[s][i], b = values[baseline][i];
            if (a === null || b === null) return;
            if (a > b) w++; else if (a < b) l++; else t++;
          });
          return s + " " + w + " wins / " + t + " ties / " + l + " losses";
        }).join("; ");
      }
      counts.textContent = text;
    }
    metric.addEventListener("change", function () { state.metric = metric.value; state.shown = PAGE; render(); });
    search.addEventListener("input", function () { state.filter = search.value; state.shown = PAGE; render(); });
    more.addEventListener("click", function () { state.shown += PAGE; render(); });
    render();
  }

  // The table of differences: every compared pair and metric, sortable by any column,
  // filtered by a system or metric name, rendered 200 rows at a time.
  function pairs(root, block) {
    var columns = [
      ["candidate", "candidate", "text"], ["baseline", "baseline", "text"],
      ["metric", "metric", "text"], ["n", "n"], ["Δ mean", "delta"],
      [Math.round(block.level * 100) + "% interval", "low"], [block.effect, "effect"],
      ["wins/ties/losses", "wins"], ["p", "p"], ["adjusted p", "adjusted"]
    ];
    var state = { sort: "adjusted", ascending: true, filter: "", metric: block.metric, shown: PAGE };
    var controls = el("div", null, "controls");
    var metric = el("select");
    metric.setAttribute("data-role", "pairs-metric");
    var names = [];
    block.rows.forEach(function (r) { if (names.indexOf(r.metric) < 0) names.push(r.metric); });
    ["(every metric)"].concat(names).forEach(function (m, i) {
      var o = el("option", m); o.value = i === 0 ? "" : m; metric.appendChild(o);
    });
    metric.value = names.indexOf(block.metric) >= 0 ? block.metric : "";
    state.metric = metric.value;
    var search = el("input");
    search.type = "search";
    search.placeholder = "system name contains…";
    search.setAttribute("data-role", "pairs-filter");
    var counts = el("span", null, "note");
    counts.setAttribute("data-role", "pairs-counts");
    controls.appendChild(el("label", "metric "));
    controls.appendChild(metric);
    controls.appendChild(search);
    controls.appendChild(counts);
    root.appendChild(controls);
    var table = el("table");
    table.setAttribute("data-role", "pairs");
    root.appendChild(table);
    var more = el("button", "show more");
    more.setAttribute("data-role", "pairs-more");
    root.appendChild(more);
    function value(r, key) {
      if (key === "wins") return r.wtl[0] - r.wtl[2];
      return r[key];
    }
    function rows() {
      var out = block.rows.filter(function (r) {
        if (state.metric && r.metric !== state.metric) return false;
        if (!state.filter) return true;
        return r.candidate.indexOf(state.filter) >= 0 || r.baseline.indexOf(state.filter) >= 0;
      });
      var key = state.sort;
      out.sort(function (x, y) {
        var a = value(x, key), b = value(y, key);
        if (a === b) return 0;
        if (a === null || a === undefined) return 1;
        if (b === null || b === undefined) return -1;
        var c = a < b ? -1 : 1;
        return state.ascending ? c : -c;
      });
      return out;
    }
    function render() {
      var all = rows();
      table.textContent = "";
      var head = el("tr");
      columns.forEach(function (c) {
        var th = el("th", c[0], "sortable" + (c[2] ? " text" : ""));
        th.setAttribute("data-sort", c[1]);
        if (state.sort === c[1]) th.textContent += state.ascending ? " ▲" : " ▼";
        th.addEventListener("click", function () {
          if (state.sort === c[1]) state.ascending = !state.ascending;
          else { state.sort = c[1]; state.ascending = c[2] === "text" || c[1] === "p" || c[1] === "adjusted"; }
          render();
        });
        head.appendChild(th);
      });
      table.appendChild(head);
      all.slice(0, state.shown).forEach(function (r) {
        var tr = el("tr");
        tr.setAttribute("data-candidate", r.candidate);
        tr.setAttribute("data-metric", r.metric);
        tr.appendChild(el("td", r.candidate, "text"));
        tr.appendChild(el("td", r.baseline, "text"));
        tr.appendChild(el("td", r.metric, "text"));
        tr.appendChild(el("td", String(r.n)));
        tr.appendChild(el("td", (r.delta > 0 ? "+" : "") + fmt(r.delta),
          r.significant ? (r.delta > 0 ? "better" : "worse") : ""));
        tr.appendChild(el("td", "[" + fmt(r.low) + ", " + fmt(r.high) + "]"));
        tr.appendChild(el("td", r.effect === null ? "–" : r.effect.toFixed(3)));
        tr.appendChild(el("td", r.wtl.join("/")));
        tr.appendChild(el("td", r.p_text));
        tr.appendChild(el("td", r.adjusted_text + (r.significant ? " *" : "")));
        table.appendChild(tr);
      });
      more.style.display = all.length > state.shown ? "" : "none";
      counts.textContent = Math.min(all.length, state.shown) + " of " + all.length +
        " rows shown (" + block.rows.length + " in all); click a column to sort by it";
    }
    metric.addEventListener("change", function () { state.metric = metric.value; state.shown = PAGE; render(); });
    search.addEventListener("input", function () { state.filter = search.value; state.shown = PAGE; render(); });
    more.addEventListener("click", function () { state.shown += PAGE; render(); });
    render();
  }

  function judges(root, block) {
    var table = el("table");
    table.setAttribute("data-role", "judge-rows");
    var head = el("tr");
    var samples = block.samples || {};
    ["sample", "question", "metric", "status", "value", "reason", "sample and evidence"].forEach(function (h) {
      head.appendChild(el("th", h, "text"));
    });
    table.appendChild(head);
    block.rows.forEach(function (row) {
      var tr = el("tr");
      var sample = Object.prototype.hasOwnProperty.call(samples, String(row.sample_id))
        ? samples[String(row.sample_id)] : null;
      tr.appendChild(el("td", String(row.sample_id), "text"));
      tr.appendChild(el("td", sample && sample.question ? sample.question : "", "text question"));
      tr.appendChild(el("td", row.metric, "text"));
      tr.appendChild(el("td", row.status, "text status-" + row.status));
      tr.appendChild(el("td", fmt(row.value)));
      var reason = [row.reason_code, row.message].concat(row.reasons || []).filter(Boolean).join(" · ");
      tr.appendChild(el("td", reason, "text"));
      var cell = el("td", null, "text");
      var hasEvidence = row.evidence !== null && row.evidence !== undefined;
      if (sample || hasEvidence) {
        var details = el("details");
        details.appendChild(el("summary", sample ? "sample and evidence" : "evidence"));
        if (sample) {
          ["question", "answer", "answer_b", "reference"].forEach(function (name) {
            if (sample[name] !== null && sample[name] !== undefined) {
              details.appendChild(el("h4", name));
              details.appendChild(el("pre", String(sample[name])));
            }
          });
          (sample.contexts || []).forEach(function (context, i) {
            details.appendChild(el("h4", "context " + (i + 1)));
            details.appendChild(el("pre", String(context)));
          });
        }
        if (hasEvidence) {
          details.appendChild(el("h4", "evidence"));
          details.appendChild(el("pre", JSON.stringify(row.evidence, null, 1)));
        }
        cell.appendChild(details);
      }
      tr.appendChild(cell);
      table.appendChild(tr);
    });
    root.appendChild(table);
  }

  document.querySelectorAll("[data-explorer]").forEach(function (root) {
    explorer(root, data.explorers[Number(root.getAttribute("data-explorer"))]);
  });
  document.querySelectorAll("[data-pairs]").forEach(function (root) {
    pairs(root, data.pairs[Number(root.getAttribute("data-pairs"))]);
  });
  document.querySelectorAll("[data-judges]").forEach(function (root) {
    judges(root, data.judges[Number(root.getAttribute("data-judges"))]);
  });
})();
