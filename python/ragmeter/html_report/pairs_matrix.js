// The pairs matrix of a campaign of hundreds of systems (ragmeter/html_report/_many_pairs.py):
// one canvas cell per pair (row minus column), drawn when the matrix comes into view, from
// the comparison's arrays packed in base64. Names and values go into the page as text
// (textContent), never as HTML; each name in its own <bdi>.
(function () {
  "use strict";
  var FLOATS = ["delta", "low", "high", "effect", "p", "adjusted"];
  var COUNTS = ["wins", "ties", "losses", "n"];
  var FLOOR = 1.0000001e-16; // p-values at the floor (1e-16 as float32) are "< 1e-16"

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function unpack(text, Kind) {
    var raw = atob(text);
    var bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return new Kind(bytes.buffer);
  }
  function num(v, digits) {
    return v === null || v === undefined || Number.isNaN(v) ? "–" : v.toFixed(digits);
  }
  function signed(v) {
    return (v > 0 ? "+" : "") + num(v, 4);
  }
  function ptext(p) {
    if (p === null || Number.isNaN(p)) return "n/a";
    if (p <= FLOOR) return "< 1e-16";
    return p >= 1e-4 ? p.toFixed(4) : p.toExponential(1);
  }

  function setup(root) {
    var number = root.getAttribute("data-pairs-matrix");
    var block = JSON.parse(document.getElementById("ragmeter-pairs-matrix-" + number).textContent);
    var n = block.systems.length;
    var index = unpack(block.index, Int32Array);
    // cellOf[a * n + b]: the pair's row (a the candidate), or -(row + 1) when compared as (b, a).
    var cellOf = new Int32Array(n * n);
    for (var r = 0; r < block.pairs; r++) {
      cellOf[index[2 * r] * n + index[2 * r + 1]] = r + 1;
      cellOf[index[2 * r + 1] * n + index[2 * r]] = -(r + 1);
    }
    var decoded = {};
    function fields(metric) {
      if (!decoded[metric]) {
        var out = {};
        FLOATS.forEach(function (k) { out[k] = unpack(block.fields[metric][k], Float32Array); });
        COUNTS.forEach(function (k) { out[k] = unpack(block.fields[metric][k], Int32Array); });
        decoded[metric] = out;
      }
      return decoded[metric];
    }
    var state = { metric: block.metric, colour: "p", pinned: null, filter: "" };

    var controls = el("div", null, "controls");
    var metric = el("select");
    metric.setAttribute("data-role", "matrix-metric");
    block.metrics.forEach(function (m) { var o = el("option", m); o.value = m; metric.appendChild(o); });
    metric.value = block.metric;
    var colour = el("select");
    colour.setAttribute("data-role", "matrix-colour");
    [["p", (block.adjusted ? "adjusted p-value" : "p-value") + " (significance)"],
     ["effect", block.effect]].forEach(function (c) {
      var o = el("option", c[1]); o.value = c[0]; colour.appendChild(o);
    });
    var search = el("input");
    search.type = "search";
    search.placeholder = "find a system…";
    search.setAttribute("data-role", "matrix-find");
    controls.appendChild(el("label", "metric "));
    controls.appendChild(metric);
    controls.appendChild(el("label", "colour by "));
    controls.appendChild(colour);
    controls.appendChild(search);
    root.appendChild(controls);
    var legend = el("p", null, "note");
    legend.setAttribute("data-role", "matrix-legend");
    root.appendChild(legend);
    var holder = el("div", null, "pairs-canvas");
    holder.style.position = "relative";
    holder.style.display = "inline-block";
    root.appendChild(holder);
    var canvas = el("canvas");
    canvas.setAttribute("data-role", "matrix-canvas");
    canvas.setAttribute("role", "img");
    holder.appendChild(canvas);
    var tip = el("div", null, "pairs-tip");
    tip.setAttribute("data-role", "matrix-tip");
    tip.style.cssText = "position:absolute;display:none;pointer-events:none;background:#fff;" +
      "border:1px solid #999;padding:4px 6px;font-size:12px;width:360px;z-index:2;" +
      "box-shadow:0 1px 4px rgba(0,0,0,.2)";
    holder.appendChild(tip);
    var details = el("div", null, "note");
    details.setAttribute("data-role", "matrix-details");
    details.textContent = "Click a cell to keep its values here.";
    root.appendChild(details);

    var cell = Math.max(2, Math.min(14, Math.floor(900 / Math.max(n, 1))));
    var order = [];
    var position = new Int32Array(n);
    function sortRows() {
      var means = block.means[state.metric];
      order = block.systems.map(function (_, i) { return i; });
      order.sort(function (a, b) {
        var x = means[a], y = means[b];
        if (x === y) return block.systems[a] < block.systems[b] ? -1 : 1;
        if (x === null) return 1;
        if (y === null) return -1;
        return y - x;
      });
      order.forEach(function (s, k) { position[s] = k; });
    }
    function values(a, b) {
      // The fields of a (row) against b (column), mirrored when compared the other way.
      var code = cellOf[a * n + b];
      if (code === 0) return null;
      var f = fields(state.metric), r = Math.abs(code) - 1, flip = code < 0;
      var out = {};
      FLOATS.forEach(function (k) { out[k] = f[k][r]; });
      COUNTS.forEach(function (k) { out[k] = f[k][r]; });
      if (flip) {
        out.delta = -out.delta; out.effect = -out.effect;
        var low = out.low; out.low = -out.high; out.high = -low;
        var w = out.wins; out.wins = out.losses; out.losses = w;
      }
      out.tested = block.adjusted && !Number.isNaN(out.adjusted) ? out.adjusted : out.p;
      out.significant = !Number.isNaN(out.tested) && out.tested <= block.alpha &&
        !Number.isNaN(out.delta);
      return out;
    }
    function fillColour(v) {
      if (v === null || Number.isNaN(v.delta)) return "#ffffff";
      if (state.colour === "effect") {
        var e = Number.isNaN(v.effect) ? 0 : Math.max(-1, Math.min(1, v.effect));
        var t = Math.abs(e);
        // Diverging: orange where the row is better, blue where worse, white at 0.
        var rgb = e >= 0 ? [230, 97, 1] : [33, 102, 172];
        return "rgb(" + rgb.map(function (c) { return Math.round(255 + (c - 255) * t); }).join(",") + ")";
      }
      if (!v.significant) return "#e0e0e0";
      var shade = Math.min(1, Math.max(0.25, -Math.log10(Math.max(v.tested, 1e-16)) / 8));
      var base = v.delta > 0 ? [27, 94, 32] : [183, 28, 28];
      return "rgb(" + base.map(function (c) { return Math.round(255 + (c - 255) * shade); }).join(",") + ")";
    }
    function draw() {
      sortRows();
      var size = n * cell;
      var ratio = window.devicePixelRatio || 1;
      canvas.width = size * ratio;
      canvas.height = size * ratio;
      canvas.style.width = size + "px";
      canvas.style.height = size + "px";
      var g = canvas.getContext("2d");
      g.setTransform(ratio, 0, 0, ratio, 0, 0);
      g.fillStyle = "#f3f4f8";
      g.fillRect(0, 0, size, size);
      for (var i = 0; i < n; i++) {
        var a = order[i];
        for (var j = 0; j < n; j++) {
          if (i === j) continue;
          g.fillStyle = fillColour(values(a, order[j]));
          g.fillRect(j * cell, i * cell, cell, cell);
        }
      }
      var find = state.filter;
      if (find) {
        g.strokeStyle = "#3f51b5";
        g.lineWidth = 1;
        block.systems.forEach(function (s, k) {
          if (s.indexOf(find) < 0) return;
          var p = position[k] * cell;
          g.strokeRect(0.5, p + 0.5, size - 1, cell - 1);
          g.strokeRect(p + 0.5, 0.5, cell - 1, size - 1);
        });
      }
      if (state.pinned) {
        g.strokeStyle = "#000";
        g.lineWidth = 2;
        g.strokeRect(position[state.pinned[1]] * cell, position[state.pinned[0]] * cell, cell, cell);
      }
      canvas.setAttribute("aria-label", "pairs matrix of " + n + " systems on " + state.metric +
        ", rows and columns sorted by the mean, best first");
      legend.textContent = state.colour === "effect"
        ? "Cell colour: " + block.effect + " of row minus column (orange: the row is better, " +
          "blue: worse; full colour at |effect| ≥ 1). Rows and columns: the systems by their " +
          "mean " + state.metric + ", best first (top left)."
        : "Cell colour: green where the row is significantly better than the column, red where " +
          "significantly worse (" + (block.adjusted ? "adjusted " : "") + "p ≤ α = " +
          block.alpha + "; darker: smaller p), grey: no significant difference. Rows and " +
          "columns: the systems by their mean " + state.metric + ", best first (top left).";
    }
    function describe(a, b, v) {
      var level = block.level ? Math.round(block.level * 100) + "% interval " : "interval ";
      return [
        [block.systems[a]], " − ", [block.systems[b]], " on " + state.metric + ": Δ = " +
          signed(v.delta) + ", " + level + "[" + num(v.low, 4) + ", " + num(v.high, 4) + "], " +
          block.effect + " " + num(v.effect, 3) + ", wins/ties/losses " + v.wins + "/" + v.ties +
          "/" + v.losses + " of " + v.n + ", p = " + ptext(v.p) +
          (block.adjusted ? ", adjusted p = " + ptext(v.adjusted) : "") +
          (v.significant ? " (significant)" : "")
      ];
    }
    function show(node, parts) {
      node.textContent = "";
      parts.forEach(function (p) {
        node.appendChild(typeof p === "string" ? document.createTextNode(p) : el("bdi", p[0]));
      });
    }
    function at(event) {
      var box = canvas.getBoundingClientRect();
      var j = Math.floor((event.clientX - box.left) / cell);
      var i = Math.floor((event.clientY - box.top) / cell);
      if (i < 0 || j < 0 || i >= n || j >= n || i === j) return null;
      return [order[i], order[j]];
    }
    canvas.addEventListener("mousemove", function (event) {
      var found = at(event);
      var v = found && values(found[0], found[1]);
      if (!v) { tip.style.display = "none"; return; }
      show(tip, describe(found[0], found[1], v));
      tip.style.display = "block";
      var box = holder.getBoundingClientRect();
      tip.style.left = Math.min(event.clientX - box.left + 12, Math.max(0, box.width - 380)) + "px";
      tip.style.top = (event.clientY - box.top + 12) + "px";
    });
    canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    canvas.addEventListener("click", function (event) {
      var found = at(event);
      var v = found && values(found[0], found[1]);
      if (!v) return;
      state.pinned = found;
      show(details, describe(found[0], found[1], v));
      details.setAttribute("data-row", block.systems[found[0]]);
      details.setAttribute("data-col", block.systems[found[1]]);
      draw();
    });
    metric.addEventListener("change", function () {
      state.metric = metric.value;
      tip.style.display = "none";
      if (state.pinned) {
        var v = values(state.pinned[0], state.pinned[1]);
        if (v) show(details, describe(state.pinned[0], state.pinned[1], v));
      }
      draw();
    });
    colour.addEventListener("change", function () {
      state.colour = colour.value;
      tip.style.display = "none";
      draw();
    });
    search.addEventListener("input", function () { state.filter = search.value; draw(); });
    draw();
    root.setAttribute("data-drawn", state.metric);
  }

  document.querySelectorAll("[data-pairs-matrix]:not([data-ready])").forEach(function (root) {
    root.setAttribute("data-ready", "1");
    if (!("IntersectionObserver" in window)) { setup(root); return; }
    // Drawn when it comes into view: the data of 44,850 pairs are decoded only then.
    var seen = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (entry.isIntersecting) { seen.disconnect(); setup(root); }
      });
    }, { rootMargin: "200px" });
    seen.observe(root);
  });
})();
