/* spacy-simalign review page: walk through the pairs, link and unlink sentences with the
   mouse or the keyboard, save the beads as the pair's gold. Edits of every pair are kept in
   memory until saved; a save carries the version (etag) it started from, and the server
   refuses it when another tab saved the pair in between (409), so nothing is lost silently. */
(function () {
  "use strict";
  var SIDES = ["complex", "simple"];
  var pairs = [];          // [{id, gold, alignment}] in the server's order (review --order, else the file's)
  var cache = {};          // id -> {view, etag, beads, dirty, undo: []}
  var current = null;      // id shown
  var anchor = null;       // {side, index}: the selected sentence
  var cursor = null;       // {side, index}: the keyboard position
  var conflictState = null;

  var $ = function (id) { return document.getElementById(id); };
  var main = $("pair");

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c];
    });
  }

  function setStatus(text, kind) {
    var el = $("status");
    el.textContent = text;
    el.className = kind ? "rv-" + kind : "";
  }

  /* the run's token (from the URL `review` printed, put in the page by the server): every API call sends it */
  var TOKEN = (document.querySelector('meta[name="review-token"]') || {}).content || "";

  function api(method, url, body, etag) {
    var opts = {method: method, headers: {"Accept": "application/json", "X-Review-Token": TOKEN}};
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    if (etag) opts.headers["If-Match"] = '"' + etag + '"';
    return fetch(url, opts).then(function (r) {
      return r.json().catch(function () { return {error: "HTTP " + r.status}; })
        .then(function (data) { return {status: r.status, data: data}; });
    });
  }

  /* the id goes in the query: in a path, "." and ".." (even as %2E) are removed by the browser */
  function pairUrl(id, what) { return "/api/pair" + (what || "") + "?id=" + encodeURIComponent(id); }

  /* ------------------------------------------------------------ beads */

  function sortBeads(beads) {
    beads.forEach(function (b) {
      b.complex.sort(function (x, y) { return x - y; });
      b.simple.sort(function (x, y) { return x - y; });
    });
    beads.sort(function (a, b) { return (a.complex[0] - b.complex[0]) || (a.simple[0] - b.simple[0]); });
    return beads;
  }

  function beadOf(beads, side, index) {
    for (var k = 0; k < beads.length; k++) if (beads[k][side].indexOf(index) >= 0) return k;
    return -1;
  }

  function copyBeads(beads) {
    return beads.map(function (b) { return {complex: b.complex.slice(), simple: b.simple.slice(), score: b.score}; });
  }

  function edit(fn) {
    var entry = cache[current];
    entry.undo.push(copyBeads(entry.beads));
    fn(entry.beads);
    entry.beads = sortBeads(entry.beads.filter(function (b) { return b.complex.length && b.simple.length; }));
    entry.dirty = true;
    draw();
  }

  /* Link c and s (joining their beads), or unlink them if they already share a bead. */
  function toggle(c, s, last) {
    edit(function (beads) {
      var bc = beadOf(beads, "complex", c), bs = beadOf(beads, "simple", s);
      if (bc >= 0 && bc === bs) {
        var b = beads[bc];
        if (b.complex.length === 1 && b.simple.length === 1) { beads.splice(bc, 1); return; }
        // the sentence that leaves: the clicked one, unless it is alone on its side
        var leave = last;
        if (b[leave.side].length === 1) leave = {side: leave.side === "complex" ? "simple" : "complex",
                                                 index: leave.side === "complex" ? s : c};
        b[leave.side].splice(b[leave.side].indexOf(leave.index), 1);
        b.score = 1;
      } else if (bc < 0 && bs < 0) {
        beads.push({complex: [c], simple: [s], score: 1});
      } else if (bs < 0) {
        beads[bc].simple.push(s); beads[bc].score = 1;
      } else if (bc < 0) {
        beads[bs].complex.push(c); beads[bs].score = 1;
      } else {
        var into = beads[bc], from = beads[bs];
        from.complex.forEach(function (i) { if (into.complex.indexOf(i) < 0) into.complex.push(i); });
        from.simple.forEach(function (i) { if (into.simple.indexOf(i) < 0) into.simple.push(i); });
        into.score = 1;
        beads.splice(bs, 1);
      }
    });
  }

  function unlink(side, index) {
    if (beadOf(cache[current].beads, side, index) < 0) return;
    edit(function (beads) {
      beads.forEach(function (b) {
        var k = b[side].indexOf(index);
        if (k >= 0) { b[side].splice(k, 1); b.score = 1; }
      });
    });
  }

  function act(side, index) {
    if (!anchor) { anchor = {side: side, index: index}; }
    else if (anchor.side === side) {
      anchor = anchor.index === index ? null : {side: side, index: index};
    } else {
      var c = side === "complex" ? index : anchor.index;
      var s = side === "simple" ? index : anchor.index;
      toggle(c, s, {side: side, index: index});
      return;
    }
    draw();
  }

  /* ------------------------------------------------------------ drawing */

  function hue(score) { return Math.round(130 * Math.max(0, Math.min(1, score))); }

  function column(view, side, beads) {
    var data = view[side];
    var of = {};
    beads.forEach(function (b, k) { b[side].forEach(function (i) { (of[i] = of[i] || []).push(k); }); });
    var partners = {};
    if (anchor && anchor.side !== side) {
      var k = beadOf(beads, anchor.side, anchor.index);
      if (k >= 0) beads[k][side].forEach(function (i) { partners[i] = true; });
    }
    var html = ['<div class="sa-col sa-' + side + '" lang="' + esc(data.lang) + '"><h3>' + side + " (" +
                esc(data.lang) + ")</h3>"];
    data.paragraphs.forEach(function (para, p) {
      html.push('<div class="sa-para" data-para="' + p + '"><div class="sa-para-label">¶ ' + (p + 1) + "</div>");
      para.forEach(function (i) {
        var cls = ["sa-sent"];
        if (anchor && anchor.side === side && anchor.index === i) cls.push("rv-anchor");
        if (cursor && cursor.side === side && cursor.index === i) cls.push("rv-cursor");
        if (partners[i]) cls.push("rv-partner");
        var mine = of[i] || [];
        var text = '<span class="sa-num">' + i + "</span>" + esc(data.sentences[i]);
        var attrs = ' data-side="' + side + '" data-index="' + i + '" tabindex="-1"';
        if (mine.length) {
          var b = beads[mine[0]];
          var nums = mine.map(function (k) { return k + 1; }).join(" ");
          cls.push("sa-aligned");
          html.push('<div class="' + cls.join(" ") + '"' + attrs + ' data-beads="' + nums + '" style="--sa-hue: ' +
                    hue(b.score) + '" title="bead ' + nums + ", " + b.complex.length + ":" + b.simple.length +
                    ", score " + b.score.toFixed(2) + '"><span class="sa-badge">' + nums + "</span>" + text + "</div>");
        } else {
          var kind = side === "complex" ? "deleted" : "added";
          cls.push("sa-" + kind);
          html.push('<div class="' + cls.join(" ") + '"' + attrs + ' title="' + kind + ': in no bead">' + text + "</div>");
        }
      });
      html.push("</div>");
    });
    html.push("</div>");
    return html.join("");
  }

  function draw() {
    var entry = cache[current];
    if (!entry) return;
    var view = entry.view, beads = entry.beads;
    var linked = {complex: 0, simple: 0};
    beads.forEach(function (b) { linked.complex += b.complex.length; linked.simple += b.simple.length; });
    var source = entry.dirty ? "edited, not saved" : (view.source === "gold" ? "saved gold" :
                 view.source === "alignments" ? "aligner output, not yet gold" : "no alignment yet");
    var stats = beads.length + " beads · " + (view.complex.sentences.length - linked.complex) + " deleted · " +
                (view.simple.sentences.length - linked.simple) + " added · " + source;
    main.innerHTML = '<section class="sa-pair" data-pair-id="' + esc(view.id) + '"><header class="sa-head"><h2>' +
      esc(view.id) + '</h2><span class="sa-stats">' + esc(stats) + "</span></header>" +
      '<div class="sa-grid">' + column(view, "complex", beads) + '<svg class="sa-links" aria-hidden="true"></svg>' +
      column(view, "simple", beads) + "</div></section>";
    var pairEl = main.querySelector(".sa-pair");
    window.spacySimalign.attach(pairEl);
    $("undo").disabled = !entry.undo.length;
    $("revert").disabled = !entry.dirty;
    if (entry.dirty) setStatus("unsaved edits", "dirty");
    else if (!$("status").classList.contains("rv-ok")) setStatus(view.source === "gold" ? "saved" : "", "");
    refreshSelect();
    if (cursor) {
      var el = sentenceEl(cursor.side, cursor.index);
      if (el) el.scrollIntoView({block: "nearest"});
    }
  }

  function sentenceEl(side, index) {
    return main.querySelector('.sa-sent[data-side="' + side + '"][data-index="' + index + '"]');
  }

  function refreshSelect() {
    var sel = $("pair-select");
    pairs.forEach(function (p, k) {
      var opt = sel.options[k];
      var mark = cache[p.id] && cache[p.id].dirty ? "✎ " : (p.gold ? "✓ " : "· ");
      if (opt && opt.textContent !== mark + p.id) opt.textContent = mark + p.id;
    });
    var pos = pairs.findIndex(function (p) { return p.id === current; });
    sel.value = current;
    $("position").textContent = (pos + 1) + " / " + pairs.length;
    $("prev").disabled = pos <= 0;
    $("next").disabled = pos >= pairs.length - 1;
  }

  /* ------------------------------------------------------------ loading and saving */

  function adopt(id, data, keepUndo) {
    var undo = keepUndo && cache[id] ? cache[id].undo : [];
    cache[id] = {view: data, etag: data.etag, dirty: false, undo: undo,
                 beads: sortBeads(data.beads.map(function (b) {
                   return {complex: b.complex.slice(), simple: b.simple.slice(), score: b.score};
                 }))};
  }

  var latestShow = 0;

  function show(id) {
    hideConflict();
    anchor = null; cursor = null;
    /* answers can arrive out of order: only the pair asked for last may be adopted and drawn */
    var ticket = ++latestShow;
    var entry = cache[id];
    var load = entry && entry.dirty ? Promise.resolve() : api("GET", pairUrl(id)).then(function (r) {
      if (ticket !== latestShow) return;
      if (r.status !== 200) throw new Error(r.data.error || ("HTTP " + r.status));
      adopt(id, r.data);
    });
    return load.then(function () {
      if (ticket !== latestShow) return;
      current = id;
      if (location.hash.slice(1) !== encodeURIComponent(id)) history.replaceState(null, "", "#" + encodeURIComponent(id));
      setStatus(cache[id].dirty ? "unsaved edits" : "", cache[id].dirty ? "dirty" : "");
      draw();
      main.focus({preventScroll: true});
    }).catch(function (err) {
      if (ticket !== latestShow) return;
      /* show the error in place of the pair: never leave the previous pair on screen as if it were this one */
      delete cache[id];
      current = id;  /* with no cache entry: nothing to edit or save, Next/Previous move on from here */
      $("pair-select").value = id;
      var p = document.createElement("p");
      p.className = "rv-empty rv-load-error";
      p.textContent = "could not load " + id + ": " + err.message;
      main.replaceChildren(p);
      setStatus("could not load " + id + ": " + err.message, "error");
    });
  }

  function save(force) {
    var entry = cache[current];
    if (!entry) return Promise.resolve();
    var id = current;
    var gold = entry.beads.map(function (b) { return [b.complex.slice(), b.simple.slice()]; });
    setStatus("saving…", "");
    return api("PUT", pairUrl(id, "/gold"), {gold: gold}, entry.etag).then(function (r) {
      if (r.status === 200) {
        adopt(id, r.data, true);
        var p = pairs.find(function (q) { return q.id === id; });
        if (p) p.gold = true;
        hideConflict();
        if (id === current) { draw(); setStatus("saved " + new Date().toLocaleTimeString(), "ok"); }
      } else if (r.status === 409) {
        conflictState = {id: id, current: r.data.current};
        $("conflict-message").textContent = "Conflict: " + r.data.error +
          ". Load the saved version (your edits are dropped), or overwrite it with yours.";
        $("conflict").hidden = false;
        setStatus("not saved: conflict", "error");
      } else {
        setStatus(r.data.error || ("not saved: HTTP " + r.status), "error");
      }
    }).catch(function (err) { setStatus("not saved: " + err.message, "error"); });
  }

  function hideConflict() { $("conflict").hidden = true; conflictState = null; }

  $("load-theirs").addEventListener("click", function () {
    if (!conflictState) return;
    adopt(conflictState.id, conflictState.current);
    hideConflict();
    setStatus("loaded the saved version", "ok");
    draw();
  });
  $("overwrite").addEventListener("click", function () {
    if (!conflictState) return;
    cache[conflictState.id].etag = conflictState.current.etag;
    hideConflict();
    save();
  });

  /* ------------------------------------------------------------ input */

  main.addEventListener("click", function (ev) {
    var el = ev.target.closest(".sa-sent");
    if (!el) return;
    var side = el.getAttribute("data-side"), index = +el.getAttribute("data-index");
    cursor = {side: side, index: index};
    act(side, index);
  });

  function step(delta) {
    var view = cache[current].view;
    if (!cursor) { cursor = {side: "complex", index: 0}; return; }
    var n = view[cursor.side].sentences.length;
    cursor = {side: cursor.side, index: Math.max(0, Math.min(n - 1, cursor.index + delta))};
  }

  function switchSide() {
    var view = cache[current].view;
    if (!cursor) { cursor = {side: "complex", index: 0}; return; }
    var other = cursor.side === "complex" ? "simple" : "complex";
    var beads = cache[current].beads, k = beadOf(beads, cursor.side, cursor.index);
    var target = k >= 0 ? beads[k][other][0] : Math.min(cursor.index, view[other].sentences.length - 1);
    cursor = {side: other, index: target};
  }

  function move(delta) {
    var pos = pairs.findIndex(function (p) { return p.id === current; }) + delta;
    if (pos >= 0 && pos < pairs.length) show(pairs[pos].id);
  }

  document.addEventListener("keydown", function (ev) {
    if (!cache[current] || ev.target.tagName === "SELECT" || ev.altKey || ev.metaKey) return;
    var key = ev.key;
    if (key === "s") { ev.preventDefault(); save(); return; }
    if (ev.ctrlKey && key !== "z") return;
    if (ev.target.tagName === "BUTTON" && (key === " " || key === "Enter")) return;
    switch (key) {
      case "ArrowDown": case "j": step(1); break;
      case "ArrowUp": case "k": step(-1); break;
      case "ArrowLeft": case "h":
        if (!cursor || cursor.side === "simple") switchSide();
        break;
      case "ArrowRight": case "l":
        if (!cursor || cursor.side === "complex") switchSide();
        break;
      case " ": case "Enter":
        if (!cursor) step(0); else { act(cursor.side, cursor.index); ev.preventDefault(); return; }
        break;
      case "x": case "Delete": case "Backspace":
        if (cursor) { unlink(cursor.side, cursor.index); ev.preventDefault(); }
        return;
      case "u": case "z": undo(); ev.preventDefault(); return;
      case "Escape": anchor = null; break;
      case "n": move(1); ev.preventDefault(); return;
      case "p": move(-1); ev.preventDefault(); return;
      default: return;
    }
    ev.preventDefault();
    draw();
  });

  function undo() {
    var entry = cache[current];
    if (!entry || !entry.undo.length) return;
    entry.beads = entry.undo.pop();
    entry.dirty = true;
    draw();
  }

  $("save").addEventListener("click", function () { save(); });
  $("undo").addEventListener("click", undo);
  $("revert").addEventListener("click", function () {
    var entry = cache[current];
    if (!entry) return;
    entry.dirty = false;
    show(current);
  });
  $("prev").addEventListener("click", function () { move(-1); });
  $("next").addEventListener("click", function () { move(1); });
  $("pair-select").addEventListener("change", function (ev) { show(ev.target.value); });
  window.addEventListener("beforeunload", function (ev) {
    var dirty = Object.keys(cache).some(function (id) { return cache[id].dirty; });
    if (dirty) { ev.preventDefault(); ev.returnValue = ""; }
  });

  api("GET", "/api/pairs").then(function (r) {
    if (r.status !== 200) throw new Error(r.data.error || ("HTTP " + r.status));
    pairs = r.data.pairs;
    var sel = $("pair-select");
    pairs.forEach(function (p) {
      var opt = document.createElement("option");
      opt.value = p.id;
      opt.textContent = (p.gold ? "✓ " : "· ") + p.id;
      sel.appendChild(opt);
    });
    if (!pairs.length) { main.innerHTML = '<p class="rv-empty">No pairs in this file.</p>'; return; }
    var wanted = decodeURIComponent(location.hash.slice(1));
    show(pairs.some(function (p) { return p.id === wanted; }) ? wanted : pairs[0].id);
  }).catch(function (err) { setStatus("could not load the pairs: " + err.message, "error"); });
})();
