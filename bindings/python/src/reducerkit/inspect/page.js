/* The ReducerKit inspector's page (hand-written; inlined into each report).
 *
 * The report embeds the initial state and one RFC 6902 patch per step; states are rebuilt
 * here by applying patches without mutating (unchanged parts are shared), with a checkpoint
 * every CHECKPOINT steps so that any step's state is at most CHECKPOINT - 1 patches away.
 * Text from the data is only ever set with textContent: never as HTML.
 *
 * The stable API for tests and users is window.reducerkit: steps, goTo, current, state,
 * patch, exportRange.
 */
(function () {
  "use strict";

  var CHECKPOINT = 64;
  var ROW = 22;
  var LANES = [
    { name: "sends", kinds: { send: 1 }, color: "--send" },
    { name: "effects", kinds: { receive: 1 }, color: "--receive" },
    { name: "requests", kinds: { request: 1, resolve: 1, fail: 1, cancelled: 1 }, color: "--request" },
    { name: "clock", kinds: { advance: 1, finish: 1 }, color: "--advance" },
    { name: "errors", kinds: { error: 1 }, color: "--error" }
  ];
  var MAX_TEXT = 200000;   // characters of JSON shown in a <pre> (Copy gives all of it)
  var MAX_LEAF = 2000;     // characters of a value shown in the tree
  var CHUNK = 200;         // children of a tree node shown at a time

  var data = JSON.parse(document.getElementById("rk-data").textContent);
  document.getElementById("rk-data").textContent = "";  // the parsed data is all the page keeps
  var steps = data.steps || [];
  var checkpoints = [data.initial];  // checkpoints[k]: the state after step k * CHECKPOINT - 1
  var tail = data.initial;           // the state after the last step
  var selected = -1;
  var view = null;                   // the filtered step indices, or null for all
  var requests = {};                 // request id -> {issued: step, ended: step}
  var $ = function (id) { return document.getElementById(id); };

  // ---- JSON Pointer and Patch, without mutation ---------------------------------------

  function parsePointer(pointer) {
    if (pointer === "") { return []; }
    if (pointer.charAt(0) !== "/") { throw new Error("not a JSON Pointer: " + pointer); }
    return pointer.substring(1).split("/").map(function (s) {
      return s.replace(/~1/g, "/").replace(/~0/g, "~");
    });
  }

  function escapeSegment(s) { return String(s).replace(/~/g, "~0").replace(/\//g, "~1"); }

  function getAt(doc, segments) {
    var node = doc;
    for (var i = 0; i < segments.length; i++) {
      if (node === null || typeof node !== "object") { return undefined; }
      node = Array.isArray(node) ? node[Number(segments[i])] :
        (Object.prototype.hasOwnProperty.call(node, segments[i]) ? node[segments[i]] : undefined);
    }
    return node;
  }

  function shallowCopy(node) {
    if (Array.isArray(node)) { return node.slice(); }
    var copy = {};
    for (var k in node) { if (Object.prototype.hasOwnProperty.call(node, k)) { copy[k] = node[k]; } }
    return copy;
  }

  function withChange(node, segments, depth, kind, value) {
    if (depth === segments.length) { return kind === "remove" ? undefined : value; }
    if (node === null || typeof node !== "object") { throw new Error("patch path through a scalar"); }
    var key = segments[depth];
    var copy = shallowCopy(node);
    var last = depth === segments.length - 1;
    if (Array.isArray(copy)) {
      var i = key === "-" ? copy.length : Number(key);
      if (!(i >= 0 && i <= copy.length) || String(i) !== key && key !== "-") { throw new Error("bad array index " + key); }
      if (last && kind === "add") { copy.splice(i, 0, value); }
      else if (last && kind === "remove") { copy.splice(i, 1); }
      else { copy[i] = withChange(copy[i], segments, depth + 1, kind, value); }
    } else if (last && kind === "remove") {
      delete copy[key];
    } else {
      copy[key] = withChange(copy[key], segments, depth + 1, kind, value);
    }
    return copy;
  }

  function applyPatch(doc, ops) {
    for (var i = 0; i < ops.length; i++) {
      var op = ops[i];
      var path = parsePointer(op.path);
      if (op.op === "add" || op.op === "replace") {
        doc = withChange(doc, path, 0, path.length && op.op === "replace" ? "set" : op.op, op.value);
      } else if (op.op === "remove") {
        doc = withChange(doc, path, 0, "remove");
      } else if (op.op === "move" || op.op === "copy") {
        var from = parsePointer(op.from);
        var moved = getAt(doc, from);
        if (op.op === "move") { doc = withChange(doc, from, 0, "remove"); }
        doc = withChange(doc, path, 0, "add", moved);
      }
    }
    return doc;
  }

  // ---- states ------------------------------------------------------------------------

  function actionName(action) {
    if (typeof action === "string") { return action; }
    if (action && typeof action === "object" && !Array.isArray(action)) {
      var keys = Object.keys(action);
      if (keys.length === 1) { return keys[0]; }
    }
    return undefined;
  }

  var clock = 0;  // the test clock after the steps added so far (ms)

  // Adds a step of the data (see reducerkit/inspect/report.py) and fills in what the page
  // derives: index, action, name, payload, request ids, test-clock time.
  function addStep(step) {
    steps.push(step);
    var i = steps.length - 1;
    step.index = i;
    tail = applyPatch(tail, step.patch || []);
    if ((i + 1) % CHECKPOINT === 0) { checkpoints.push(tail); }
    step.diverged = !!step.diverged;
    step.settled = !step.busy;
    var s = step.step;
    if (s && typeof s === "object") {
      var k = Object.keys(s)[0], value = s[k];
      if (step.kind === "error") { step.of = k; }
      if (k === "send" || k === "receive") {
        step.action = value;
        if (step.name === undefined) { step.name = actionName(value); }
      } else if (k === "request") {
        step.payload = value.payload;
        step.name = value.name;
        var id = step.request_id !== undefined ? step.request_id : value.id;
        if (typeof id === "number") { requests[id] = { issued: i, ended: -1 }; }
      } else if (k === "resolve" || k === "fail" || k === "cancelled") {
        if (k === "resolve") { step.payload = s.response; }
        if (k === "fail") { step.payload = s.message; }
        var life = requests[value];
        if (life) {
          step.name = steps[life.issued].name;
          if (life.ended < 0 && step.kind !== "error") { life.ended = i; }
        }
      } else if (k === "advance_ms" && typeof value === "number") {
        clock += value;
      }
    }
    step.clock_ms = clock;
  }

  function stateAt(i) {  // the state after step i (-1: the initial state)
    if (i < 0) { return data.initial; }
    if (i === steps.length - 1) { return tail; }
    var k = Math.floor((i + 1) / CHECKPOINT);
    var doc = checkpoints[k];
    for (var j = k * CHECKPOINT; j <= i; j++) { doc = applyPatch(doc, steps[j].patch || []); }
    return doc;
  }

  function clone(value) { return value === undefined ? null : JSON.parse(JSON.stringify(value)); }

  // ---- text ---------------------------------------------------------------------------

  function json(value, indent) {
    var text = JSON.stringify(value === undefined ? null : value, null, indent === undefined ? 2 : indent);
    return text === undefined ? "null" : text;
  }

  function shown(text, limit) {
    return text.length <= limit ? text :
      text.substring(0, limit) + "\u2026 (" + (text.length - limit) + " more characters: use Copy JSON)";
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function toast(message) {
    var t = $("toast");
    t.textContent = message;
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(function () { t.hidden = true; }, 1500);
  }

  function copyText(text) {
    function fallback() {
      var area = el("textarea");
      area.value = text;
      document.body.appendChild(area);
      area.select();
      try { document.execCommand("copy"); toast("Copied"); } catch (e) { toast("Copy failed"); }
      document.body.removeChild(area);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { toast("Copied"); }, fallback);
    } else { fallback(); }
  }

  function describe(step) {
    var s = step.step || {};
    switch (step.kind) {
      case "send": case "receive":
        return step.name !== undefined ? step.name : step.live ? "state change" : json(step.action, 0);
      case "request": return (step.name || "?") + " #" + (step.request_id !== undefined ? step.request_id : s.request && s.request.id);
      case "resolve": case "fail": case "cancelled": return (step.name ? step.name + " " : "") + "#" + s[step.kind];
      case "advance": return "+" + s.advance_ms + " ms";
      case "error": return (step.of || "") + " " + (step.name !== undefined ? step.name : "") + " \u2192 " + ((s.error && s.error.status) || "");
      case "finish": return step.synthetic ? "end of scenario" : "finish";
      default: return "";
    }
  }

  // ---- filter -------------------------------------------------------------------------

  function touches(step, pointer) {
    var ops = step.patch || [];
    for (var i = 0; i < ops.length; i++) {
      var p = ops[i].path;
      if (p === pointer || p.indexOf(pointer + "/") === 0 || pointer.indexOf(p + "/") === 0 || p === "") { return true; }
    }
    return false;
  }

  function matches(step, query) {
    if (query.charAt(0) === "/") { return touches(step, query.replace(/\/+$/, "")); }
    var q = query.toLowerCase();
    return step.kind.indexOf(q) === 0 || (step.name !== undefined && String(step.name).toLowerCase().indexOf(q) >= 0);
  }

  function applyFilter() {
    var query = $("filter").value.trim();
    if (!query) { view = null; } else {
      view = [];
      for (var i = 0; i < steps.length; i++) { if (matches(steps[i], query)) { view.push(i); } }
    }
    renderList(true);
    drawLanes();
  }

  function visibleCount() { return view ? view.length : steps.length; }
  function visibleAt(row) { return view ? view[row] : row; }
  function rowOf(index) {
    if (!view) { return index; }
    var lo = 0, hi = view.length - 1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (view[mid] === index) { return mid; }
      if (view[mid] < index) { lo = mid + 1; } else { hi = mid - 1; }
    }
    return -1;
  }

  // ---- the step list (only the visible rows exist) --------------------------------------

  // Layout read once per resize (reading it after DOM changes would force a layout).
  var geometry = { listTop: 0, listHeight: 600, lanesWidth: 1 };

  function measure() {
    var list = $("list");
    geometry.listTop = list.scrollTop;
    geometry.listHeight = list.clientHeight || geometry.listHeight;
    geometry.lanesWidth = Math.max(1, $("lanes-box").clientWidth);
  }

  var rowPool = [];  // the row elements, reused: only the visible rows exist

  function renderList(resized) {
    var inner = $("list-inner");
    var count = visibleCount();
    if (resized) { inner.style.height = (count * ROW) + "px"; }
    var first = Math.max(0, Math.floor(geometry.listTop / ROW) - 5);
    var last = Math.min(count, first + Math.ceil(geometry.listHeight / ROW) + 10);
    var used = 0;
    for (var r = first; r < last; r++, used++) {
      var i = visibleAt(r), step = steps[i];
      var row = rowPool[used];
      if (!row) {
        row = rowPool[used] = el("div", "row");
        row.appendChild(el("span", "i"));
        row.appendChild(el("span", "kind"));
        row.appendChild(el("span", ""));
        row.appendChild(el("span", "muted"));
        inner.appendChild(row);
      }
      row.hidden = false;
      row.className = "row" + (i === selected ? " selected" : "") + (step.diverged ? " diverged" : "");
      row.style.top = (r * ROW) + "px";
      row.setAttribute("data-index", String(i));
      var parts = row.childNodes;
      parts[0].textContent = String(i);
      parts[1].className = "kind k-" + step.kind;
      parts[1].textContent = step.kind;
      parts[2].textContent = " " + describe(step);
      parts[3].textContent = "  v" + step.version + (step.clock_ms ? "  t=" + step.clock_ms + "ms" : "");
    }
    for (; used < rowPool.length; used++) { rowPool[used].hidden = true; }
  }

  function scrollListTo(index) {  // without reading the layout
    var r = rowOf(index);
    if (r < 0) { return; }
    var top = r * ROW;
    if (top < geometry.listTop || top + ROW > geometry.listTop + geometry.listHeight) {
      geometry.listTop = Math.max(0, top - geometry.listHeight / 2);
      $("list").scrollTop = geometry.listTop;
    }
  }

  // ---- the timeline ---------------------------------------------------------------------

  function laneOf(kind) {
    for (var l = 0; l < LANES.length; l++) { if (LANES[l].kinds[kind]) { return l; } }
    return 3;
  }

  function drawLanes() {
    var canvas = $("lanes");
    measure();
    var width = geometry.lanesWidth, height = 80;
    var ratio = window.devicePixelRatio || 1;
    canvas.width = Math.floor(width * ratio);
    canvas.height = Math.floor(height * ratio);
    var g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    var styles = getComputedStyle(document.documentElement);
    var colors = LANES.map(function (lane) { return styles.getPropertyValue(lane.color).trim() || "#888"; });
    var n = steps.length;
    if (!n) { return; }
    var w = width / n, laneH = 16;
    var dim = view ? {} : null;
    if (view) { for (var v = 0; v < view.length; v++) { dim[view[v]] = 1; } }
    g.globalAlpha = 0.35;
    for (var id in requests) {  // a request's life: issued -> answered / failed / cancelled
      var life = requests[id];
      var end = life.ended >= 0 ? life.ended : n - 1;
      g.fillStyle = colors[2];
      g.fillRect(life.issued * w + w / 2, 2 * laneH + 7, Math.max(1, (end - life.issued) * w), 2);
    }
    for (var i = 0; i < n; i++) {
      var lane = laneOf(steps[i].kind);
      g.globalAlpha = dim && !dim[i] ? 0.15 : 1;
      g.fillStyle = colors[lane];
      g.fillRect(i * w, lane * laneH + 2, Math.max(1, w - (w > 3 ? 1 : 0)), laneH - 4);
    }
    g.globalAlpha = 1;
    placeCursor();
  }

  function placeCursor() {
    var n = steps.length, width = geometry.lanesWidth;
    var cursor = $("cursor");
    cursor.style.left = n ? ((selected + 0.5) / n * width - 1) + "px" : "0";
    var mark = $("diverge-mark");
    if (data.divergence && n) {
      mark.hidden = false;
      mark.style.left = ((data.divergence.index + 0.5) / n * width - 1) + "px";
    }
  }

  // ---- the state tree -------------------------------------------------------------------

  function changedPaths(step) {
    var exact = {}, onPath = {};
    var ops = (step && step.patch) || [];
    for (var i = 0; i < ops.length; i++) {
      exact[ops[i].path] = 1;
      var segs = parsePointer(ops[i].path), p = "";
      onPath[""] = 1;
      for (var j = 0; j < segs.length; j++) { p += "/" + escapeSegment(segs[j]); onPath[p] = 1; }
    }
    return { exact: exact, onPath: onPath };
  }

  function copyButton() {  // one click handler for all of them: see the tree's listener
    var b = el("button", "node-copy", "copy");
    b.type = "button";
    b.title = "Copy this value as JSON";
    return b;
  }

  function treeNode(key, value, pointer, marks, depth) {
    var isObject = value !== null && typeof value === "object";
    if (!isObject) {
      var leaf = el("div", "leaf" + (marks.exact[pointer] ? " changed" : ""));
      leaf.setAttribute("data-path", pointer);
      if (key !== null) { leaf.appendChild(el("span", "key", key)); leaf.appendChild(el("span", "", ": ")); }
      leaf.appendChild(el("span", "value", shown(json(value, 0), MAX_LEAF)));
      leaf.appendChild(copyButton());
      return leaf;
    }
    var keys = Array.isArray(value) ? null : Object.keys(value);
    var size = keys ? keys.length : value.length;
    var node = el("details", (marks.exact[pointer] ? "changed" : "") + (marks.onPath[pointer] ? " onpath" : ""));
    node.setAttribute("data-path", pointer);
    var summary = el("summary");
    if (key !== null) { summary.appendChild(el("span", "key", key)); summary.appendChild(el("span", "", ": ")); }
    summary.appendChild(el("span", "preview", (keys ? "{" : "[") + size + (keys ? "}" : "]")));
    summary.appendChild(copyButton());
    node.appendChild(summary);
    var children = el("div", "children");
    node.appendChild(children);
    var rendered = 0;
    function more() {
      var stop = Math.min(size, rendered + CHUNK);
      var button = children.lastChild && children.lastChild.className === "more" ? children.lastChild : null;
      if (button) { children.removeChild(button); }
      for (; rendered < stop; rendered++) {
        var k = keys ? keys[rendered] : String(rendered);
        children.appendChild(treeNode(k, keys ? value[k] : value[rendered], pointer + "/" + escapeSegment(k), marks, depth + 1));
      }
      if (rendered < size) {
        var b = el("button", "more", "show " + Math.min(CHUNK, size - rendered) + " more of " + (size - rendered));
        b.type = "button";
        b.addEventListener("click", more);
        children.appendChild(b);
      }
    }
    node.addEventListener("toggle", function () { if (node.open && rendered === 0 && size) { more(); } });
    if (depth === 0 || marks.onPath[pointer]) { node.open = true; if (size) { more(); } }
    return node;
  }

  // ---- selection --------------------------------------------------------------------------

  function requestLife(step) {
    var s = step.step || {};
    var id = step.kind === "request" ? (step.request_id !== undefined ? step.request_id : s.request && s.request.id) : s[step.kind];
    var life = requests[id];
    if (!life) { return ""; }
    var issued = steps[life.issued];
    var text = "request #" + id + " " + (issued.name || "") + ": issued at step " + life.issued + " (t=" + issued.clock_ms + " ms)";
    if (life.ended >= 0) {
      var ended = steps[life.ended];
      text += " \u2192 " + (ended.kind === "resolve" ? "answered" : ended.kind === "fail" ? "failed" : ended.kind === "cancelled" ? "cancelled" : ended.kind) +
        " at step " + life.ended + " (t=" + ended.clock_ms + " ms)";
    } else { text += " \u2192 not answered in this session"; }
    return text;
  }

  function renderDetail() {
    var step = steps[selected];
    var state = stateAt(selected);
    if (!step) {
      $("step-title").textContent = steps.length ? "" : (data.error ? "The replay could not start" : "No steps");
      $("step-meta").textContent = data.error || "";
      $("payload").textContent = ""; $("patch").textContent = "";
    } else {
      $("step-title").textContent = "Step " + selected + ": " + step.kind + " " + describe(step);
      $("step-meta").textContent = "version " + step.version + " \u00b7 test clock " + step.clock_ms + " ms" +
        (step.settled ? "" : " \u00b7 effects running after it") + (step.diverged ? " \u00b7 DIVERGED" : "");
      var payload = step.action !== undefined ? step.action : step.payload !== undefined ? step.payload : step.step;
      $("payload").textContent = shown(json(payload), MAX_TEXT);
      $("patch").textContent = shown(json(step.patch || []), MAX_TEXT);
    }
    var life = step ? requestLife(step) : "";
    $("request-life").hidden = !life;
    $("request-life").textContent = life;
    var div = data.divergence;
    var showDiv = !!(step && step.diverged && div);
    $("divergence").hidden = !showDiv;
    if (showDiv) {
      $("divergence-message").textContent = shown(div.message || "", MAX_TEXT);
      $("expected").textContent = shown(json(div.expected), MAX_TEXT);
      $("actual").textContent = shown(json(div.actual), MAX_TEXT);
    }
    var tree = $("tree");
    tree.textContent = "";
    tree.appendChild(treeNode(null, state, "", changedPaths(step), 0));
  }

  function goTo(i) {
    if (typeof i !== "number" || !isFinite(i)) { throw new TypeError("goTo takes a step index (a number)"); }
    i = Math.floor(i);
    if (!steps.length) { selected = -1; renderDetail(); return -1; }
    if (i < 0 || i >= steps.length) { throw new RangeError("step " + i + " is not in 0.." + (steps.length - 1)); }
    selected = i;
    $("slider").value = String(i);
    renderDetail();
    scrollListTo(i);
    renderList(false);
    placeCursor();
    var hash = "#step=" + i;
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { /* a sandboxed page */ }
    }
    return i;
  }

  // ---- export -------------------------------------------------------------------------------

  function exportPlan(a, b) {
    if (typeof a !== "number" || typeof b !== "number" || Math.floor(a) !== a || Math.floor(b) !== b ||
        a < 0 || b < a || b >= steps.length) {
      throw new RangeError("exportRange takes two step indices a <= b in 0.." + (steps.length - 1));
    }
    var warnings = [], ids = {}, next = 1, out = [];
    if (a > 0 && !steps[a - 1].settled) {
      warnings.push("effects were running after step " + (a - 1) + " (a timer, a request): the new scenario starts without them");
    }
    if (!steps[b].settled && steps[b].kind !== "finish") {
      warnings.push("effects were running after step " + b + ": the new scenario may end with actions or requests it does not assert");
    }
    for (var i = a; i <= b; i++) {
      var step = steps[i];
      if (step.synthetic) { continue; }
      if (!step.step) { throw new Error("step " + i + " is a live change without its action: live steps cannot be exported"); }
      var s = clone(step.step), kind = Object.keys(s)[0];
      if (kind === "request") {
        var original = step.request_id !== undefined ? step.request_id : s.request.id;
        ids[original] = next;
        s.request.id = next++;
      } else if (kind === "resolve" || kind === "fail" || kind === "cancelled") {
        if (ids[s[kind]] === undefined) {
          warnings.push("step " + i + " answers request #" + s[kind] + ", issued before step " + a);
        } else { s[kind] = ids[s[kind]]; }
      }
      if ((kind === "send" || kind === "receive") && s.error === undefined) { s.state = clone(stateAt(i)); }
      out.push(s);
    }
    var options = clone(data.options || {});
    options.initial_state = clone(stateAt(a - 1));
    var scenario = {
      name: data.name + " (steps " + a + " to " + b + ")",
      feature: data.feature,
      options: options,
      exhaustive: data.exhaustive !== false,
      steps: out,
      final_state: clone(stateAt(b))
    };
    return { scenario: scenario, warnings: warnings };
  }

  function download(a, b) {
    var plan;
    try { plan = exportPlan(a, b); } catch (e) { showNote(String(e.message || e)); return; }
    var text = JSON.stringify(plan.scenario, null, 2) + "\n";
    var blob = new Blob([text], { type: "application/json" });
    var link = el("a");
    var base = String(data.name || "session").replace(/[^A-Za-z0-9_.-]+/g, "_").substring(0, 60) || "session";
    link.download = base + "_steps_" + a + "-" + b + ".scenario.json";
    link.href = URL.createObjectURL(blob);
    document.body.appendChild(link);
    link.click();
    document.body.removeChild(link);
    setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    showNote(plan.warnings.length ? "Exported with warnings:\n- " + plan.warnings.join("\n- ") : "");
  }

  function showNote(text) { var n = $("export-note"); n.textContent = text; n.hidden = !text; }

  // ---- theme, banner, keyboard, permalink -----------------------------------------------------

  function setTheme(theme) {
    document.documentElement.setAttribute("data-theme", theme);
    try { localStorage.setItem("reducerkit-inspector-theme", theme); } catch (e) { /* file:// without storage */ }
    drawLanes();
  }

  function initialTheme() {
    var saved = null;
    try { saved = localStorage.getItem("reducerkit-inspector-theme"); } catch (e) { saved = null; }
    if (saved === "dark" || saved === "light") { return saved; }
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function banner() {
    var b = $("banner");
    b.textContent = "";
    if (data.error) {
      b.hidden = false;
      b.textContent = "The replay could not start: " + data.error;
    } else if (data.divergence) {
      b.hidden = false;
      var d = data.divergence;
      b.appendChild(el("span", "", "The replay diverges from the file at step " + d.index + ": " +
        shown(String(d.message || "").split("\n")[0], 300) + (data.not_run ? " (" + data.not_run + " later step(s) not run)" : "")));
      var go = el("button", "", "Show step " + d.index);
      go.type = "button";
      go.addEventListener("click", function () { goTo(d.index); });
      b.appendChild(go);
    } else { b.hidden = true; }
  }

  function stepFromHash() {
    var m = /^#step=(\d+)$/.exec(location.hash);
    if (!m) { return -1; }
    var i = Number(m[1]);
    return i < steps.length ? i : steps.length - 1;
  }

  function neighbour(delta) {
    if (!steps.length) { return; }
    if (!view) { goTo(Math.max(0, Math.min(steps.length - 1, selected + delta))); return; }
    if (!view.length) { return; }
    var i;
    if (delta > 0) { for (i = 0; i < view.length && view[i] <= selected; i++) { /* next */ } goTo(view[Math.min(i, view.length - 1)]); }
    else { for (i = view.length - 1; i >= 0 && view[i] >= selected; i--) { /* previous */ } goTo(view[Math.max(i, 0)]); }
  }

  function onKey(e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" && t.type !== "range" || t.tagName === "TEXTAREA")) { return; }
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    if (e.key === "ArrowLeft" || e.key === "ArrowUp") { neighbour(-1); }
    else if (e.key === "ArrowRight" || e.key === "ArrowDown") { neighbour(1); }
    else if (e.key === "Home") { if (steps.length) { goTo(view && view.length ? view[0] : 0); } }
    else if (e.key === "End") { if (steps.length) { goTo(view && view.length ? view[view.length - 1] : steps.length - 1); } }
    else { return; }
    e.preventDefault();
  }

  // ---- live sessions (reducerkit.inspect.serve) ---------------------------------------------------

  function live() {
    if (!data.live || typeof EventSource === "undefined") { return; }
    var badge = $("live");
    badge.hidden = false;
    badge.textContent = "live";
    var source = new EventSource(data.live.events + "?from=" + steps.length);
    var pending = false;
    source.addEventListener("step", function (e) {
      var step = JSON.parse(e.data);
      if (step.index !== steps.length) { return; }  // a repeat after reconnecting
      var following = selected === steps.length - 1;
      addStep(step);
      if (view && matches(step, $("filter").value.trim())) { view.push(step.index); }
      $("slider").max = String(steps.length - 1);
      $("export-to").max = $("export-from").max = String(steps.length - 1);
      if (following) { selected = steps.length - 1; }
      if (!pending) {
        pending = true;
        requestAnimationFrame(function () {
          pending = false;
          drawLanes();
          renderList(true);
          if (selected === steps.length - 1) { goTo(selected); }
        });
      }
    });
    source.addEventListener("end", function () { badge.textContent = "ended"; source.close(); });
    source.onerror = function () { badge.textContent = "reconnecting"; };
    source.onopen = function () { badge.textContent = "live"; };
  }

  // ---- start ------------------------------------------------------------------------------

  var given = steps;
  steps = [];
  for (var g = 0; g < given.length; g++) { addStep(given[g]); }

  document.title = (data.name ? data.name + " \u2013 " : "") + "ReducerKit inspector";
  $("title").textContent = data.name || "ReducerKit inspector";
  $("subtitle").textContent = (data.feature || "") + (data.source ? " \u00b7 " + data.source : "") +
    " \u00b7 " + steps.length + " steps" + (data.options && data.options.clock ? " \u00b7 " + data.options.clock + " clock" : "");
  var names = $("lane-names");
  LANES.forEach(function (lane) { names.appendChild(el("div", "", lane.name)); });
  $("slider").max = String(Math.max(0, steps.length - 1));
  $("export-to").max = $("export-from").max = String(Math.max(0, steps.length - 1));
  $("export-to").value = String(Math.max(0, steps.length - 1));
  document.documentElement.setAttribute("data-theme", initialTheme());
  banner();

  $("slider").addEventListener("input", function () { goTo(Number($("slider").value)); });
  $("filter").addEventListener("input", applyFilter);
  $("list").addEventListener("scroll", function () { geometry.listTop = $("list").scrollTop; renderList(false); });
  $("list-inner").addEventListener("click", function (e) {
    var row = e.target.closest ? e.target.closest(".row") : null;
    if (row) { goTo(Number(row.getAttribute("data-index"))); }
  });
  $("lanes-box").addEventListener("click", function (e) {
    if (!steps.length) { return; }
    var box = $("lanes-box").getBoundingClientRect();
    goTo(Math.max(0, Math.min(steps.length - 1, Math.floor((e.clientX - box.left) / box.width * steps.length))));
  });
  $("theme").addEventListener("click", function () {
    setTheme(document.documentElement.getAttribute("data-theme") === "dark" ? "light" : "dark");
  });
  $("export").addEventListener("click", function () { download(Number($("export-from").value), Number($("export-to").value)); });
  Array.prototype.forEach.call(document.querySelectorAll("button.copy"), function (b) {
    b.addEventListener("click", function () {
      var what = b.getAttribute("data-copy"), step = steps[selected];
      if (what === "state") { copyText(json(stateAt(selected))); }
      else if (what === "patch") { copyText(json(step ? step.patch : [])); }
      else { copyText(json(step ? (step.action !== undefined ? step.action : step.payload !== undefined ? step.payload : step.step) : null)); }
    });
  });
  $("tree").addEventListener("click", function (e) {
    var button = e.target;
    if (!button || button.className !== "node-copy") { return; }
    e.preventDefault();
    e.stopPropagation();
    var node = button.closest("[data-path]");
    if (node) { copyText(json(getAt(stateAt(selected), parsePointer(node.getAttribute("data-path"))))); }
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", function () { var i = stepFromHash(); if (i >= 0 && i !== selected) { goTo(i); } });
  window.addEventListener("resize", function () { measure(); drawLanes(); renderList(false); });

  window.reducerkit = Object.freeze({
    /** Every step: {index, kind, action?, name?, version, diverged}. */
    steps: function () {
      return steps.map(function (s) {
        var o = { index: s.index, kind: s.kind, version: s.version, diverged: !!s.diverged };
        if (s.action !== undefined) { o.action = clone(s.action); }
        if (s.name !== undefined) { o.name = s.name; }
        return o;
      });
    },
    /** Selects step i (0-based) and returns i. */
    goTo: goTo,
    /** The selected step's index (-1 when there is no step). */
    current: function () { return selected; },
    /** The state after the selected step, as a JSON value. */
    state: function () { return clone(stateAt(selected)); },
    /** The RFC 6902 patch of the selected step. */
    patch: function () { return selected >= 0 ? clone(steps[selected].patch || []) : []; },
    /** A scenario object covering steps a..b inclusive (initial state: the state before a). */
    exportRange: function (a, b) { return exportPlan(a, b).scenario; }
  });

  drawLanes();
  renderList(true);
  var start = stepFromHash();
  // A permalink's step, else the divergence, else (live: following) the newest step, else 0.
  goTo(start >= 0 ? start : data.divergence ? data.divergence.index : data.live ? steps.length - 1 : 0);
  live();
}());
