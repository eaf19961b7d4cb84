/* usmp report page: buffer details on hover and click, sortable tables, and a check of the page's
   own figures (the live bytes recomputed from the buffers) that tests read back. No network. */
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = [];
  window.addEventListener("error", function (event) {
    errors.push(String(event.message));
    root.setAttribute("data-script-errors", errors.join(" | "));
  });

  var data = JSON.parse(document.getElementById("usmp-data").textContent);
  var FIELDS = ["kind", "size", "alignment", "pool", "offset", "first", "last", "tensors", "writers", "readers"];

  function buffer(name) {
    var values = data.buffers[name];
    if (!values) { return null; }
    var b = { name: name };
    FIELDS.forEach(function (field, i) { b[field] = values[i]; });
    return b;
  }

  function number(n) { return Number(n).toLocaleString("en-US"); }

  function steps(list) {
    return list.length ? list.map(function (s) { return "step " + s + ": " + data.steps[s]; }) : ["-"];
  }

  function element(tag, text) {
    var e = document.createElement(tag);
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function details(b) {
    var rows = [
      ["kind", b.kind], ["size", number(b.size) + " B"], ["alignment", b.alignment + " B"],
      ["pool, offset", b.pool + " @ " + number(b.offset) + " (to " + number(b.offset + b.size) + ")"],
      ["live", "steps " + b.first + " to " + b.last + " (" + data.steps[b.first] + " to " + data.steps[b.last] + ")"],
      ["tensors", b.tensors.length ? b.tensors.join(", ") : "none (made by the compiler)"],
      ["written by", steps(b.writers).join("; ")], ["read by", steps(b.readers).join("; ")]
    ];
    var box = document.createDocumentFragment();
    box.appendChild(element("h4", b.name));
    var list = element("dl");
    rows.forEach(function (row) {
      list.appendChild(element("dt", row[0]));
      list.appendChild(element("dd", row[1]));
    });
    box.appendChild(list);
    return box;
  }

  var tooltip = document.getElementById("tooltip");
  var panel = document.getElementById("details");
  var selected = null;

  function highlightSteps(b) {
    document.querySelectorAll("#operator-table tbody tr").forEach(function (tr) {
      var step = Number(tr.getAttribute("data-step"));
      tr.classList.toggle("highlight", !!b && step >= b.first && step <= b.last);
    });
  }

  function select(rect, b) {
    if (selected) { selected.classList.remove("selected"); }
    selected = rect;
    rect.classList.add("selected");
    panel.textContent = "";
    panel.appendChild(details(b));
    highlightSteps(b);
  }

  var wanted = location.hash.indexOf("#buffer=") === 0 ? decodeURIComponent(location.hash.slice(8)) : null;
  document.querySelectorAll("rect.buffer").forEach(function (rect) {
    var b = buffer(rect.getAttribute("data-buffer"));
    if (!b) { return; }
    if (b.name === wanted) { select(rect, b); }  /* a link to report.html#buffer=<name> opens its details */
    var title = rect.querySelector("title");
    if (title) { title.remove(); }  /* the tooltip replaces the browser's */
    rect.addEventListener("mousemove", function (event) {
      tooltip.textContent = "";
      tooltip.appendChild(details(b));
      tooltip.hidden = false;
      tooltip.style.left = Math.min(event.clientX + 14, window.innerWidth - 430) + "px";
      tooltip.style.top = (event.clientY + 14) + "px";
    });
    rect.addEventListener("mouseleave", function () { tooltip.hidden = true; });
    rect.addEventListener("click", function () { select(rect, b); });
  });

  document.querySelectorAll("table.sortable").forEach(function (table) {
    var headers = table.querySelectorAll("thead th");
    headers.forEach(function (th, column) {
      th.addEventListener("click", function () {
        var ascending = !th.classList.contains("asc");
        headers.forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(ascending ? "asc" : "desc");
        var numeric = th.getAttribute("data-type") === "num";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[column], y = b.cells[column];
          var vx = numeric ? Number(x.getAttribute("data-v")) : x.textContent;
          var vy = numeric ? Number(y.getAttribute("data-v")) : y.textContent;
          var order = numeric ? vx - vy : String(vx).localeCompare(String(vy));
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });

  /* The page's own figures, recomputed from the buffers: peak live bytes of each workspace pool. */
  var checks = document.getElementById("checks");
  data.workspace_pools.forEach(function (pool) {
    var live = [];
    data.steps.forEach(function () { live.push(0); });
    Object.keys(data.buffers).forEach(function (name) {
      var b = buffer(name);
      if (b.pool !== pool) { return; }
      for (var s = b.first; s <= Math.min(b.last, live.length - 1); s++) { live[s] += b.size; }
    });
    var peak = Math.max.apply(null, live.concat([0]));
    var same = JSON.stringify(live) === JSON.stringify(data.live[pool] || live);
    checks.setAttribute("data-peak-" + pool, String(peak));
    checks.setAttribute("data-live-matches-" + pool, same ? "yes" : "no");
  });
  checks.setAttribute("data-buffers", String(Object.keys(data.buffers).length));
  checks.setAttribute("data-steps", String(data.steps.length));
  root.setAttribute("data-ready", "1");
})();
