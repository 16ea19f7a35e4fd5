// The nugget section of a ragmeter report (html_report/_nuggets.py): each topic's nuggets and
// every answer's labels are drawn when the topic is first opened, from the page's JSON block.
// Every value is put into the page as text (textContent), every name, nugget and reason in its
// own <bdi>; a failed judgement is drawn as an error with its reason, never as a label.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("ragmeter-data").textContent);
  var PAGE = 200;
  var NAMES = { S: "support", P: "partial_support", N: "not_support" };

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = text;
    if (cls) node.className = cls;
    return node;
  }
  function bdi(text) {
    return el("bdi", text);
  }
  function cell(tag, parts, cls) {
    // Text and names into a new element: each string as text, each [name] isolated.
    var node = el(tag, null, cls);
    parts.forEach(function (p) {
      node.appendChild(typeof p === "string" ? document.createTextNode(p) : bdi(p[0]));
    });
    return node;
  }

  function topic(root, block, t) {
    var nuggets = t.nuggets;
    var list = el("table");
    list.setAttribute("data-role", "nuggets");
    var head = el("tr");
    ["#", "nugget", "importance"].forEach(function (h) { head.appendChild(el("th", h, "text")); });
    list.appendChild(head);
    nuggets.forEach(function (n, i) {
      var tr = el("tr");
      tr.appendChild(el("td", String(i + 1)));
      tr.appendChild(cell("td", [[n[0]]], "text"));
      tr.appendChild(el("td", n[1] === null ? "not labelled" : n[1], "text importance-" + n[1]));
      list.appendChild(tr);
    });
    root.appendChild(list);
    if (!t.answers.length) {
      if (block.runs.length) root.appendChild(el("p", "No run answered this topic.", "note"));
      return;
    }
    var repeated = t.answers.some(function (a) { return a[1] > 0; });
    var controls = el("div", null, "controls");
    var search = el("input");
    search.type = "search";
    search.placeholder = "run contains…";
    search.setAttribute("data-role", "run-filter");
    var counts = el("span", null, "note");
    counts.setAttribute("data-role", "counts");
    controls.appendChild(search);
    controls.appendChild(counts);
    root.appendChild(controls);
    var scroll = el("div", null, "scroll");
    var table = el("table");
    table.setAttribute("data-role", "nugget-labels");
    scroll.appendChild(table);
    root.appendChild(scroll);
    var more = el("button", "show more");
    more.setAttribute("data-role", "more");
    root.appendChild(more);
    var state = { filter: "", shown: PAGE };

    function header() {
      var tr = el("tr");
      tr.appendChild(el("th", "run", "text"));
      if (repeated) tr.appendChild(el("th", "repeat"));
      tr.appendChild(el("th", "status", "text"));
      nuggets.forEach(function (n, i) {
        var th = el("th", String(i + 1), n[1] === "vital" ? "importance-vital" : "");
        th.title = (n[1] || "not labelled") + ": " + n[0];
        tr.appendChild(th);
      });
      tr.appendChild(el("th", "judge's reasons", "text"));
      return tr;
    }
    function row(a) {
      var tr = el("tr");
      tr.setAttribute("data-run", block.runs[a[0]]);
      tr.appendChild(cell("td", [[block.runs[a[0]]]], "text"));
      if (repeated) tr.appendChild(el("td", String(a[1] + 1)));
      tr.appendChild(el("td", a[3], "text status-" + a[3]));
      var flags = a[7] || [];
      if (a[2] === null) {
        var why = el("td", null, "text status-" + a[3]);
        why.colSpan = nuggets.length;
        why.setAttribute("data-role", "no-label");
        why.appendChild(document.createTextNode(a[3] + (a[4] ? " (" + a[4] + ")" : "") + ": "));
        why.appendChild(bdi(a[5] || "no reason given"));
        why.appendChild(document.createTextNode(" (no label)"));
        tr.appendChild(why);
        tr.appendChild(el("td", flags.length ? flags.join(", ") : "–", "text"));
        return tr;
      }
      a[2].split("").forEach(function (code, i) {
        var td = el("td", code, "label label-" + code);
        var reason = a[6][i] === undefined ? "" : ": " + block.reasons[a[6][i]];
        td.title = NAMES[code] + reason;
        tr.appendChild(td);
      });
      var last = el("td", null, "text");
      if (flags.length) last.appendChild(el("span", flags.join(", ") + " ", "status-error"));
      if (a[6].length) {
        var details = el("details");
        details.appendChild(el("summary", "reasons"));
        var ol = el("ol");
        a[2].split("").forEach(function (code, i) {
          var li = el("li");
          li.appendChild(el("span", NAMES[code], "label-" + code));
          li.appendChild(document.createTextNode(" · "));
          li.appendChild(bdi(nuggets[i][0]));
          li.appendChild(document.createTextNode(" · "));
          li.appendChild(bdi(a[6][i] === undefined ? "no reason given" : block.reasons[a[6][i]]));
          ol.appendChild(li);
        });
        details.appendChild(ol);
        last.appendChild(details);
      } else if (!flags.length) {
        last.textContent = "no reasons given";
      }
      tr.appendChild(last);
      return tr;
    }
    function render() {
      table.textContent = "";
      table.appendChild(header());
      var wanted = state.filter.toLowerCase();
      var all = t.answers.filter(function (a) {
        return !wanted || block.runs[a[0]].toLowerCase().indexOf(wanted) >= 0;
      });
      all.slice(0, state.shown).forEach(function (a) { table.appendChild(row(a)); });
      more.style.display = all.length > state.shown ? "" : "none";
      counts.textContent = Math.min(all.length, state.shown) + " of " + all.length +
        " judgements shown (" + t.answers.length + " in all)";
    }
    search.addEventListener("input", function () { state.filter = search.value; state.shown = PAGE; render(); });
    more.addEventListener("click", function () { state.shown += PAGE; render(); });
    render();
  }

  document.querySelectorAll("[data-nuggets]").forEach(function (root) {
    var block = data.nuggets[root.getAttribute("data-nuggets")];
    root.querySelectorAll("details[data-topic]").forEach(function (details) {
      details.addEventListener("toggle", function () {
        if (!details.open || details.getAttribute("data-drawn")) return;
        details.setAttribute("data-drawn", "1");
        var body = el("div", null, "nugget-topic");
        details.appendChild(body);
        topic(body, block, block.topics[Number(details.getAttribute("data-topic"))]);
      });
    });
  });
})();
