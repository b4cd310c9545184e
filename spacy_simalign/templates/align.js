/* spacy-simalign alignment view: connector lines between aligned sentences and hover
   highlighting of a bead's sentences. Works on every .sa-pair on the page; the review page
   calls spacySimalign.draw(pairElement) again after each edit. Without JavaScript the view
   still shows bead numbers and score colours. */
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";

  function beadsOf(el) {
    var b = el.getAttribute("data-beads");
    return b ? b.split(" ") : [];
  }

  function draw(pair) {
    var svg = pair.querySelector("svg.sa-links");
    if (!svg) return;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var box = svg.getBoundingClientRect();
    if (!box.width) return;
    var ends = {};
    pair.querySelectorAll(".sa-sent[data-beads]").forEach(function (el) {
      var side = el.getAttribute("data-side");
      var r = el.getBoundingClientRect();
      beadsOf(el).forEach(function (b) {
        ends[b] = ends[b] || {complex: [], simple: [], hue: el.style.getPropertyValue("--sa-hue")};
        ends[b][side].push(r.top + Math.min(r.height / 2, 14) - box.top);
      });
    });
    var w = box.width;
    Object.keys(ends).forEach(function (b) {
      var e = ends[b];
      e.complex.forEach(function (y1) {
        e.simple.forEach(function (y2) {
          var p = document.createElementNS(NS, "path");
          p.setAttribute("d", "M0," + y1 + " C" + w / 2 + "," + y1 + " " + w / 2 + "," + y2 + " " + w + "," + y2);
          p.setAttribute("stroke", "hsl(" + (e.hue || 130) + " 55% 45%)");
          p.setAttribute("data-bead", b);
          svg.appendChild(p);
        });
      });
    });
  }

  function hover(pair, bead, on) {
    pair.querySelectorAll(".sa-sent[data-beads], svg.sa-links path").forEach(function (el) {
      var mine = el.tagName.toLowerCase() === "path" ? [el.getAttribute("data-bead")] : beadsOf(el);
      if (mine.indexOf(bead) >= 0) el.classList.toggle("sa-hover", on);
    });
  }

  function attach(pair) {
    if (pair.getAttribute("data-sa-ready")) return;
    pair.setAttribute("data-sa-ready", "1");
    pair.addEventListener("mouseover", function (ev) {
      var el = ev.target.closest && ev.target.closest(".sa-sent[data-beads]");
      if (el) beadsOf(el).forEach(function (b) { hover(pair, b, true); });
    });
    pair.addEventListener("mouseout", function (ev) {
      var el = ev.target.closest && ev.target.closest(".sa-sent[data-beads]");
      if (el) beadsOf(el).forEach(function (b) { hover(pair, b, false); });
    });
    if (window.ResizeObserver) new ResizeObserver(function () { draw(pair); }).observe(pair);
    draw(pair);
  }

  function init() { document.querySelectorAll(".sa-pair").forEach(attach); }

  window.spacySimalign = {draw: draw, attach: attach, init: init};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
