// tagop's HTML report: a sortable table with ratio bars and their 95%
// intervals, and a flame graph (icicle: root at the top) of any sample type.
// Plain JavaScript on data embedded in the page; it fetches nothing.
"use strict";

const errors = [];
window.addEventListener("error", (e) => {
  errors.push(String(e.message));
  document.body.dataset.errors = errors.join(" | ");
});

(function () {
  const started = performance.now();
  const data = JSON.parse(document.getElementById("tagop-data").textContent);
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const group = (n) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const human = (v) => {
    const units = ["", "k", "M", "G", "T", "P"];
    let i = 0;
    while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return i === 0 ? String(Math.round(v)) : v.toPrecision(3) + units[i];
  };

  // Header.
  $("title").textContent = data.title;
  document.title = data.title;
  $("notes").innerHTML = data.notes.map((n) => "<li>" + esc(n) + "</li>").join("");

  // ---- The table ----------------------------------------------------------
  const table = data.table;
  const cols = table.columns;
  const value = (c) => (c === null ? null : typeof c === "number" ? c : c[0]);
  const low = (c) => (c === null || typeof c === "number" ? null : c[1]);
  const high = (c) => (c === null || typeof c === "number" ? null : c[2]);
  // Bars are drawn against the column's largest value (its interval's top).
  const scale = cols.map((col, k) => {
    if (col.kind === "count") return 0;
    let max = 0;
    for (const r of table.rows) {
      const c = r[2 + k];
      if (c !== null) max = Math.max(max, high(c) ?? value(c));
    }
    return max;
  });
  const format = (col, v) =>
    col.kind === "ratio" ? (v * 100).toFixed(2) + "%" : col.kind === "mean" ? v.toFixed(1) : group(v);
  const intervalText = (col, c) =>
    low(c) === null ? "" : "95% interval " + format(col, low(c)) + " \u2013 " + format(col, high(c)) + (col.unit ? " " + col.unit : "");

  function cellHtml(col, k, c) {
    if (c === null) return '<td class="na">n/a</td>';
    const v = value(c);
    const title = intervalText(col, c);
    if (col.kind === "count") return '<td title="' + esc(title) + '">' + format(col, v) + "</td>";
    const max = scale[k] || 1;
    const pct = (x) => Math.max(0, Math.min(100, (x / max) * 100)).toFixed(2) + "%";
    let bar = '<span class="bar"><span class="fill" style="width:' + pct(v) + '"></span>';
    if (low(c) !== null) bar += '<span class="ci" style="left:' + pct(low(c)) + ";width:calc(" + pct(high(c)) + " - " + pct(low(c)) + ')"></span>';
    bar += "</span>";
    return '<td title="' + esc(title) + '"><span class="cell-bar">' + bar + '<span class="value">' + format(col, v) + "</span></span></td>";
  }

  function rowHtml(r, cls) {
    const module = r[1] ? "<small>" + esc(r[1]) + "</small>" : "";
    let html = "<tr" + (cls ? ' class="' + cls + '"' : "") + '><td class="name" title="' + esc(r[0]) + (r[1] ? " (" + esc(r[1]) + ")" : "") + '">' + esc(r[0]) + module + "</td>";
    cols.forEach((col, k) => { html += cellHtml(col, k, r[2 + k]); });
    return html + "</tr>";
  }

  let sortKey = cols.findIndex((c) => c.kind === "count");  // -1: by name
  let descending = sortKey >= 0;
  let filter = "";
  let limit = 500;
  let shown = 0;

  $("table-title").textContent = "Rows by " + table.row_title;
  $("table").querySelector("thead").innerHTML =
    '<tr><th class="name" data-k="-1">' + esc(table.row_title) + "</th>" +
    cols.map((c, k) => '<th data-k="' + k + '" title="' + esc(c.id + (c.description ? ": " + c.description : "") + (c.unit ? " (" + c.unit + ")" : "")) + '">' + esc(c.title) + "</th>").join("") +
    "</tr>";
  if (table.total) $("table").querySelector("tfoot").innerHTML = rowHtml(table.total, "total");

  function renderTable() {
    const needle = filter.toLowerCase();
    let rows = needle ? table.rows.filter((r) => (r[0] + " " + r[1]).toLowerCase().includes(needle)) : table.rows.slice();
    if (sortKey < 0) rows.sort((a, b) => (descending ? -1 : 1) * a[0].localeCompare(b[0]));
    else rows.sort((a, b) => {
      const x = value(a[2 + sortKey]), y = value(b[2 + sortKey]);
      if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1;  // n/a last
      return descending ? y - x : x - y;
    });
    const visible = rows.slice(0, limit);
    shown = visible.length;
    $("table").querySelector("tbody").innerHTML = visible.map((r) => rowHtml(r, "")).join("");
    document.querySelectorAll("th").forEach((th) => {
      const k = Number(th.dataset.k);
      th.classList.toggle("sorted", k === sortKey);
      th.classList.toggle("asc", k === sortKey && !descending);
    });
    $("more").innerHTML = rows.length > shown
      ? "Showing " + group(shown) + " of " + group(rows.length) + ' rows. <button id="show-all">Show all</button>'
      : group(rows.length) + (rows.length === 1 ? " row" : " rows") + (needle ? " match" : "");
    const all = $("show-all");
    if (all) all.onclick = () => { limit = Infinity; renderTable(); };
  }

  $("table").querySelector("thead").addEventListener("click", (e) => {
    const th = e.target.closest("th");
    if (!th) return;
    const k = Number(th.dataset.k);
    descending = k === sortKey ? !descending : k >= 0;
    sortKey = k;
    renderTable();
  });
  $("filter").addEventListener("input", (e) => { filter = e.target.value; renderTable(); });
  $("table-hint").textContent = "click a heading to sort; bars show the value and its 95% interval";
  renderTable();

  // ---- The flame graph ----------------------------------------------------
  const flame = data.flame;
  let drawnFrames = 0;
  if (!flame) {
    $("flame-section").style.display = "none";
  } else {
    const rowHeight = 18;
    const nodes = flame.nodes;  // [parent, name, v0, v1, ...], parents before children
    const children = nodes.map(() => []);
    const depthOf = new Int32Array(nodes.length);
    let maxDepth = 0;
    for (let i = 1; i < nodes.length; i++) {
      children[nodes[i][0]].push(i);
      depthOf[i] = depthOf[nodes[i][0]] + 1;
      maxDepth = Math.max(maxDepth, depthOf[i]);
    }
    const canvas = $("flame");
    const tip = $("tip");
    const select = $("flame-type");
    select.innerHTML = flame.types.map((t, k) => '<option value="' + k + '">' + esc(t.name + " (" + t.unit + ")") + "</option>").join("");
    select.value = String(flame.default);
    let type = flame.default;
    let zoom = 0;
    let rects = [];  // by depth: [x, width, node]

    const hue = (name) => {
      let h = 0;
      for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
      return h;
    };
    const color = (name) => {
      const h = hue(name);
      return "hsl(" + (8 + (h % 40)) + "," + (70 + ((h >> 8) % 20)) + "%," + (58 + ((h >> 16) % 12)) + "%)";
    };

    function draw() {
      const ratio = window.devicePixelRatio || 1;
      const width = canvas.parentElement.clientWidth;
      const height = (maxDepth + 1) * rowHeight + 2;
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
      canvas.style.height = height + "px";
      const ctx = canvas.getContext("2d");
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = "12px system-ui, sans-serif";
      ctx.textBaseline = "middle";
      rects = Array.from({ length: maxDepth + 1 }, () => []);
      drawnFrames = 0;
      const v = (i) => nodes[i][2 + type];
      const total = v(zoom);
      if (total <= 0) {
        ctx.fillStyle = "#5b6475";
        ctx.fillText("No samples of " + flame.types[type].name + " here.", 8, rowHeight / 2);
        drawnFrames = 1;
        return;
      }
      const box = (i, x, w, faded) => {
        const y = depthOf[i] * rowHeight;
        rects[depthOf[i]].push([x, w, i]);
        drawnFrames++;
        ctx.fillStyle = faded ? "#dfe3ea" : color(flame.names[nodes[i][1]]);
        ctx.fillRect(x, y, Math.max(w - 0.5, 0.5), rowHeight - 1);
        if (w > 28) {
          const name = flame.names[nodes[i][1]];
          let text = name;
          const room = w - 8;
          if (ctx.measureText(text).width > room) {
            let n = Math.max(1, Math.floor((room / ctx.measureText(name).width) * name.length) - 2);
            text = name.slice(0, n) + "\u2026";
            while (n > 1 && ctx.measureText(text).width > room) text = name.slice(0, --n) + "\u2026";
          }
          ctx.fillStyle = "#1d2330";
          ctx.fillText(text, x + 4, y + rowHeight / 2);
        }
      };
      // The zoomed node's ancestors span the width, faded.
      for (let a = nodes[zoom][0]; a >= 0; a = nodes[a][0]) box(a, 0, width, true);
      const stack = [[zoom, 0]];
      while (stack.length) {
        const [i, x] = stack.pop();
        const w = (v(i) / total) * width;
        if (w < 0.3) continue;
        box(i, x, w, false);
        let cx = x;
        for (const c of children[i]) {
          stack.push([c, cx]);
          cx += (v(c) / total) * width;
        }
      }
    }

    function at(e) {
      const r = canvas.getBoundingClientRect();
      const x = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / rowHeight);
      return (rects[d] || []).find(([rx, rw]) => x >= rx && x < rx + rw);
    }
    canvas.addEventListener("mousemove", (e) => {
      const hit = at(e);
      if (!hit) { tip.style.display = "none"; return; }
      const i = hit[2];
      const t = flame.types[type];
      const all = nodes[0][2 + type];
      tip.textContent = flame.names[nodes[i][1]] + " \u2014 " + human(nodes[i][2 + type]) + " " + t.unit + " (" + ((nodes[i][2 + type] / all) * 100).toFixed(2) + "% of " + t.name + ")";
      tip.style.display = "block";
      tip.style.left = Math.min(e.clientX + 12, window.innerWidth - tip.offsetWidth - 8) + "px";
      tip.style.top = e.clientY + 14 + "px";
    });
    canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    canvas.addEventListener("click", (e) => {
      const hit = at(e);
      if (hit) { zoom = hit[2]; draw(); }
    });
    $("flame-reset").addEventListener("click", () => { zoom = 0; draw(); });
    select.addEventListener("change", () => { type = Number(select.value); zoom = 0; draw(); });
    window.addEventListener("resize", draw);
    $("flame-hint").textContent = flame.omitted > 0
      ? group(flame.omitted) + " frames under " + (flame.min_fraction * 100).toPrecision(2) + "% of the total are left out; click a frame to zoom"
      : "click a frame to zoom, hover for numbers";
    draw();
  }

  // ---- Self-check: what a test reads from the rendered page --------------
  const problems = [];
  // Sorting by name, a click on a heading, and a zoom, as a reader would;
  // then back to the first order.
  const firstName = () => { const c = document.querySelector("tbody td.name"); return c ? c.title : ""; };
  const before = firstName(), initialKey = sortKey, initialDescending = descending;
  sortKey = -1;
  descending = false;
  renderTable();
  const byName = table.rows.map((r) => r[0]).sort((a, b) => a.localeCompare(b));
  if (table.rows.length && !firstName().startsWith(byName[0])) problems.push("sorting by name did not put " + byName[0] + " first");
  document.querySelector("thead th").click();  // the name heading again: Z to A
  if (sortKey !== -1 || !descending) problems.push("a click on the sorted heading did not reverse the order");
  sortKey = initialKey;
  descending = initialDescending;
  renderTable();
  if (firstName() !== before) problems.push("sorting back did not restore the first row");
  if (flame && flame.nodes.length > 1) {
    const r = $("flame").getBoundingClientRect();  // zoom into the first frame under the root, and out
    $("flame").dispatchEvent(new MouseEvent("click", { clientX: r.left + 2, clientY: r.top + 18 + 4 }));
    $("flame-reset").click();
  }
  const expectedRows = Math.min(limit, table.rows.length);
  if (shown !== expectedRows) problems.push("table shows " + shown + " rows, expected " + expectedRows);
  if ($("table").querySelectorAll("tbody tr").length !== expectedRows) problems.push("table body has the wrong row count");
  if (flame && drawnFrames === 0) problems.push("the flame graph drew nothing");
  document.body.dataset.rows = String(shown);
  document.body.dataset.frames = String(drawnFrames);
  document.body.dataset.renderMs = (performance.now() - started).toFixed(0);
  document.body.dataset.selfcheck = problems.length ? "failed: " + problems.join("; ") : "ok";
})();
