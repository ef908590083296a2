// /diagnose: read the files in the browser, cut large ones, POST /api/diagnose, show the result.
(function () {
  "use strict";
  var form = document.getElementById("diagnose-form");
  if (!form) { return; }
  var KEY = "denpex-web-token";
  var HEAD = 64 << 10;
  var MATCH = /error|exception|traceback|killed|fatal|xid|nccl|oom|out of memory|segfault|timed? ?out|signal/i;
  var cap = parseInt(form.getAttribute("data-cap"), 10);
  var tail = parseInt(form.getAttribute("data-tail"), 10);
  var phases = JSON.parse(form.getAttribute("data-phases") || "{}");
  var token = document.getElementById("token");
  var status = document.getElementById("status");
  token.value = sessionStorage.getItem(KEY) || "";
  token.addEventListener("change", function () { sessionStorage.setItem(KEY, token.value); });

  function $(id) { return document.getElementById(id); }
  function text(id, value) { $(id).textContent = value || ""; }
  function mb(n) { return (n / 1048576).toFixed(1) + " MB"; }
  function ranges(ranks) {
    var out = [], i = 0, s = ranks.slice().sort(function (a, b) { return a - b; });
    while (i < s.length) {
      var j = i;
      while (j + 1 < s.length && s[j + 1] === s[j] + 1) { j += 1; }
      out.push(j > i + 1 ? s[i] + "-" + s[j] : j > i ? s[i] + "," + s[j] : String(s[i]));  // as the thread
      i = j + 1;
    }
    return out.join(",");
  }
  function list(id, rows) {
    var ul = $(id);
    ul.textContent = "";
    rows.forEach(function (r) { var li = document.createElement("li"); li.textContent = r; ul.appendChild(li); });
  }

  // A large file: its head, the matching lines of the middle (a budget), and as much tail as fits.
  async function cut(file, limit) {
    if (limit <= 4 * HEAD) {  // many files under a small cap: only their tails
      $("cuts").appendChild(Object.assign(document.createElement("li"), {
        textContent: file.name + ": " + mb(file.size) + " — sent the last " + mb(limit) + " only"
      }));
      return file.slice(file.size - limit);
    }
    var budget = Math.min(256 << 10, Math.floor(limit / 8));
    var tailBytes = limit - HEAD - budget;
    var middleEnd = file.size - tailBytes, kept = [], used = 0;
    for (var at = HEAD; at < middleEnd && used < budget; at += 4 << 20) {
      var lines = (await file.slice(at, Math.min(at + (4 << 20), middleEnd)).text()).split("\n");
      for (var k = 1; k < lines.length - 1 && used < budget; k += 1) {
        if (MATCH.test(lines[k])) { kept.push(lines[k] + "\n"); used += lines[k].length + 1; }
      }
    }
    var left = file.size - HEAD - tailBytes;
    $("cuts").appendChild(Object.assign(document.createElement("li"), {
      textContent: file.name + ": " + mb(file.size) + " — sent the first " + mb(HEAD) + ", the last " +
        mb(tailBytes) + " and " + kept.length + " matching lines of the " + mb(left) + " between (left out)"
    }));
    return new Blob([file.slice(0, HEAD), kept.join(""), file.slice(middleEnd)], { type: "text/plain" });
  }

  function show(d) {
    var ini = d.initiating || {};
    text("r-title", d.entry ? d.entry.title : d.category.replace(/_/g, " "));
    text("r-headline", "confidence " + Math.round(d.confidence * 100) + "% · category " + d.category);
    text("r-rank", ini.rank === null || ini.rank === undefined ? "not determined" :
      "rank " + ini.rank + (ini.node ? " on " + ini.node : "") + (ini.time ? " at " + ini.time : ""));
    text("r-phase", ini.phase ? (ini.phase_inferred ? "probably while " : "while ") + (phases[ini.phase] || ini.phase) : "unknown");
    text("r-evidence", (ini.evidence || []).map(function (e) { return (e.record ? e.source + " entries[" + (e.line - 1) + "]" : e.source + ":" + e.line) + "  " + e.text; }).join("\n"));
    text("r-cause", d.root_cause);
    text("r-fix", d.fix);
    text("r-snippet", d.fix_snippet);
    $("r-snippet").hidden = !d.fix_snippet;
    text("r-verify", d.verify);
    list("r-collateral", (d.collateral || []).map(function (g) {
      return "ranks " + ranges(g.ranks) + " — " + (g.what || g.category.replace(/_/g, " ")) + " — " + g.why;
    }));
    var missing = (d.missing_evidence || []).map(function (m) { return m.what + " → " + m.next_action; });
    list("r-missing", missing.length ? missing : ["none"]);
    if (!(d.collateral || []).length) { list("r-collateral", ["none"]); }
    var entry = $("r-entry");
    entry.textContent = "";
    if (d.entry) {
      var a = document.createElement("a");
      a.href = "/kb/" + encodeURIComponent(d.entry.id);
      a.textContent = "Knowledge base: " + d.entry.title;
      entry.appendChild(a);
    }
    text("r-json", JSON.stringify(d, null, 2));
    $("result").hidden = false;
  }

  form.addEventListener("submit", async function (ev) {
    ev.preventDefault();
    sessionStorage.setItem(KEY, token.value);
    $("cuts").textContent = "";
    var files = Array.prototype.slice.call($("log-files").files);
    var pasted = $("log-text").value;
    var body = new FormData();
    if (pasted.trim()) { body.append("text", pasted); }
    var room = cap - (64 << 10) - new Blob([pasted]).size;
    var each = files.length ? Math.min(tail, Math.floor(room / files.length)) : 0;
    status.textContent = "Reading…";
    for (var i = 0; i < files.length; i += 1) {
      var f = files[i];
      body.append("file", f.size > each ? await cut(f, each) : f, f.name);
    }
    status.textContent = "Diagnosing…";
    $("result").hidden = true;
    var headers = token.value ? { Authorization: "Bearer " + token.value } : {};
    try {
      var resp = await fetch("/api/diagnose", { method: "POST", body: body, headers: headers });
      var data = await resp.json();
      if (!resp.ok) { status.textContent = "Error " + resp.status + ": " + (data.error || ""); return; }
      status.textContent = "Done.";
      show(data);
    } catch (err) {
      status.textContent = "The request failed: " + err;
    }
  });
})();
