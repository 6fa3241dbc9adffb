"""The timeline page's behaviour, inline in every page (``html.py``): plain JavaScript, no
library, no network.

- A click (or Enter) on an event selects it, shows its payload in the details panel, and
  lights up the status it led to, and the arrow it took, in the state machine beside it.
- A click (or Enter) on a group's segment in the group rows opens the group (drawing it from
  the page's data the first time, for a long run), on its title in the gutter closes it; the
  open groups are stacked again under the group rows, in the gutter and in the body alike,
  and what spans the body's height follows.
- Zoom scales the four SVGs of the picture together, from a fifth to three times; ``fit``
  puts every column in the width, or as many as a fifth of the size shows (the overview
  strip shows the whole of a longer run).
- The overview strip shows the part in view and scrolls the picture where it is clicked.
- Search finds the events whose seq, kind, status or lane matches (in the page's data, so
  closed groups are searched too), marks them on the strip and in the picture, and steps
  from hit to hit (opening a hit's group and selecting it).

The page's data (``<script type="application/json" id="tl-data">``): ``events`` (``[seq,
kind, status, lane, group]`` per event), ``lazy`` (a closed group's markup, by group) and,
on a long run's page, ``payloads`` (by seq) and ``titles``.
"""

from __future__ import annotations

__all__ = ["SCRIPT"]

SCRIPT = r"""
(function () {
  var scroll = document.getElementById('tl-scroll');
  var panel = document.getElementById('details');
  if (!scroll || !panel) return;
  var data = JSON.parse(document.getElementById('tl-data').textContent);
  var COL = +scroll.getAttribute('data-col'), GUTTER = +scroll.getAttribute('data-gutter');
  var svgs = Array.prototype.slice.call(scroll.querySelectorAll('svg[data-w]'));
  var body = scroll.querySelector('.tl-body-svg');
  var gutter = scroll.querySelector('.tl-gutter-svg');
  var zoom = 1;
  function attr(e, name) { return e.getAttribute(name); }
  function all(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }
  function clickable(e, act) {
    e.addEventListener('click', act);
    e.addEventListener('keydown', function (k) {
      if (k.key === 'Enter' || k.key === ' ') { k.preventDefault(); act(); }
    });
  }
  var bySeq = {};
  data.events.forEach(function (e) { bySeq[e[0]] = e; });

  // -- groups: a segment of the group rows opens its group; its title in the gutter closes it
  var blocksTop = +scroll.getAttribute('data-blocks-top');
  var pairs = all(body, 'g.grp').map(function (g) {
    return [g, gutter.querySelector('g.grp[data-group="' + attr(g, 'data-group') + '"]')];
  });
  function block(id) { return body.querySelector('g.grp[data-group="' + id + '"]'); }
  function isOpen(id) { var g = block(id); return !!g && !g.classList.contains('grp-closed'); }
  function relayout() {
    var y = blocksTop;
    pairs.forEach(function (pair) {
      var open = !pair[0].classList.contains('grp-closed');
      pair.forEach(function (g) {
        if (open) {
          g.removeAttribute('display');
          g.setAttribute('transform', 'translate(0,' + y + ')');
        } else g.setAttribute('display', 'none');
      });
      var seg = body.querySelector('.seg[data-group="' + attr(pair[0], 'data-group') + '"]');
      if (seg) seg.classList.toggle('seg-open', open);
      if (open) y += +attr(pair[0], 'data-open-h');
    });
    y = Math.max(y, 1);
    [body, gutter].forEach(function (s) {
      s.setAttribute('data-h', y);
      s.setAttribute('viewBox', '0 0 ' + attr(s, 'data-w') + ' ' + y);
    });
    all(body, '[data-full]').forEach(function (e) {
      if (e.tagName === 'line') e.setAttribute('y2', y); else e.setAttribute('height', y);
    });
    applyZoom();
  }
  function setOpen(id, open) {
    pairs.forEach(function (pair) {
      if (attr(pair[0], 'data-group') !== id) return;
      if (open && pair[0].hasAttribute('data-lazy')) {  // drawn now, from the page's data
        var held = data.lazy[id] || {};
        pair[0].innerHTML = held.body || '';
        pair[1].innerHTML = held.gutter || '';
        pair.forEach(function (g) { g.removeAttribute('data-lazy'); wire(g); });
      }
      pair.forEach(function (g) { g.classList.toggle('grp-closed', !open); });
    });
  }
  function wire(root) {
    all(root, '.ev').forEach(function (e) {
      clickable(e, function () { select(attr(e, 'data-seq')); });
      if (hitSet[attr(e, 'data-seq')]) e.classList.add('found');
    });
    all(root, '.grp-toggle').forEach(function (t) {
      clickable(t, function () {
        setOpen(attr(t.closest('g.grp'), 'data-group'), false);
        relayout();
      });
    });
  }
  all(body, '.seg').forEach(function (seg) {
    clickable(seg, function () {
      var id = attr(seg, 'data-group'), opening = !isOpen(id);
      setOpen(id, opening);
      relayout();
      if (opening) {
        var r = block(id).getBoundingClientRect(), s = scroll.getBoundingClientRect();
        if (r.top > s.bottom - 40 || r.top < s.top) scroll.scrollTop += r.top - s.top - 120;
      }
    });
  });
  all(document, '[data-groups]').forEach(function (b) {
    b.addEventListener('click', function () {
      var open = attr(b, 'data-groups') === 'open';
      pairs.forEach(function (pair) { setOpen(attr(pair[0], 'data-group'), open); });
      relayout();
    });
  });
  if (!pairs.length) {
    var tools = document.getElementById('groups-tools');
    if (tools) tools.style.display = 'none';
  }

  // -- zoom and the overview strip ---------------------------------------------------
  var level = document.getElementById('zoom-level');
  var strip = document.getElementById('overview'), view = document.getElementById('ov-view');
  var columns = strip ? +attr(strip, 'data-columns') : 1;
  function applyZoom() {
    svgs.forEach(function (s) {
      s.setAttribute('width', attr(s, 'data-w') * zoom);
      s.setAttribute('height', attr(s, 'data-h') * zoom);
    });
    if (level) level.textContent = Math.round(zoom * 100) + '%';
    showView();
  }
  function visibleCentre() {
    return (scroll.scrollLeft + (scroll.clientWidth - GUTTER * zoom) / 2) / (COL * zoom);
  }
  function goToColumn(col) {
    scroll.scrollLeft = col * COL * zoom - (scroll.clientWidth - GUTTER * zoom) / 2;
  }
  function setZoom(z, keep) {
    var centre = keep === undefined ? visibleCentre() : keep;
    zoom = Math.max(0.2, Math.min(3, z));  // below a fifth, the strip shows it better
    applyZoom();
    goToColumn(centre);
  }
  function showView() {
    if (!view) return;
    var left = scroll.scrollLeft / (COL * zoom);
    var width = (scroll.clientWidth - GUTTER * zoom) / (COL * zoom);
    view.setAttribute('x', Math.max(0, left));
    view.setAttribute('width', Math.max(0.5, Math.min(columns, width)));
  }
  all(document, '[data-zoom]').forEach(function (b) {
    b.addEventListener('click', function () {
      var how = attr(b, 'data-zoom');
      if (how === 'in') setZoom(zoom * 1.5);
      else if (how === 'out') setZoom(zoom / 1.5);
      else if (how === 'fit') {
        setZoom(scroll.clientWidth / (GUTTER + columns * COL + 24), columns / 2);
      } else setZoom(1);
    });
  });
  scroll.addEventListener('scroll', showView);
  window.addEventListener('resize', showView);
  if (strip) strip.addEventListener('click', function (e) {
    var r = strip.getBoundingClientRect();
    goToColumn((e.clientX - r.left) / r.width * columns);
  });

  // -- selecting an event ------------------------------------------------------------
  function select(seq) {
    var ev = body.querySelector('.ev[data-seq="' + seq + '"]');
    var row = document.getElementById('event-' + seq);
    if (!ev) return;
    all(document, '.ev.selected').forEach(function (e) { e.classList.remove('selected'); });
    ev.classList.add('selected');
    var known = bySeq[seq];
    panel.querySelector('.d-title').textContent = row ? attr(row, 'data-title')
      : 'event ' + seq + ': ' + known[1] + ' (' + known[3] + ')';
    var from = attr(ev, 'data-before'), to = attr(ev, 'data-status');
    panel.querySelector('.d-note').innerHTML = 'it took the execution from <b>' + from
      + '</b> to <b>' + to + '</b> (the lit arrow of the state machine beside this)';
    var pre = row && row.querySelector('pre');
    var text = pre ? pre.textContent : (data.payloads || {})[seq] || '';
    if (!pre) {  // the page's data holds it compact: indent it, unless it was cut
      try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* cut */ }
    }
    panel.querySelector('pre').textContent = text;
    all(document, '.sm-state').forEach(function (s) {
      s.classList.toggle('sm-current', attr(s, 'data-status') === attr(ev, 'data-status'));
    });
    all(document, '.sm-edge').forEach(function (e) {
      e.classList.toggle('sm-taken', attr(e, 'data-from') === attr(ev, 'data-before')
        && attr(e, 'data-kinds').split(' ').indexOf(attr(ev, 'data-kind')) >= 0);
    });
    var inspector = document.getElementById('inspector');
    if (inspector) inspector.scrollIntoView({block: 'nearest'});
  }

  // -- search ------------------------------------------------------------------------
  var input = document.getElementById('search'), count = document.getElementById('search-count');
  var hitsPath = document.getElementById('ov-hits');
  var hits = [], hitSet = {}, at = -1;
  function matches(e, q) {
    if (/^#?\d+$/.test(q)) return String(e[0]) === q.replace('#', '');
    return e[1].toLowerCase().indexOf(q) >= 0 || e[3].toLowerCase().indexOf(q) >= 0
      || e[2] === q;
  }
  function search() {
    var q = input.value.trim().toLowerCase();
    all(body, '.ev.found').forEach(function (e) { e.classList.remove('found'); });
    hits = q ? data.events.filter(function (e) { return matches(e, q); }) : [];
    hitSet = {};
    hits.forEach(function (e) { hitSet[e[0]] = true; });
    all(body, '.ev').forEach(function (e) {
      if (hitSet[attr(e, 'data-seq')]) e.classList.add('found');
    });
    at = -1;
    if (count) count.textContent = q ? hits.length + ' event(s)' : '';
    if (hitsPath) hitsPath.setAttribute('d', hits.map(function (e) {
      return 'M' + (e[0] - 0.5) + ',0V22';
    }).join(''));
  }
  function go(step) {
    if (!hits.length) return;
    at = (at + step + hits.length) % hits.length;
    var hit = hits[at];
    if (block(hit[4]) && !isOpen(hit[4])) { setOpen(hit[4], true); relayout(); }
    select(hit[0]);
    goToColumn(hit[0] - 0.5);
    var ev = body.querySelector('.ev[data-seq="' + hit[0] + '"]');
    if (ev) {
      var r = ev.getBoundingClientRect(), s = scroll.getBoundingClientRect();
      scroll.scrollTop += (r.top - s.top) - scroll.clientHeight / 2;
    }
    if (count) count.textContent = (at + 1) + ' of ' + hits.length;
  }
  if (input) {
    input.addEventListener('input', search);
    input.addEventListener('keydown', function (k) {
      if (k.key === 'Enter') { k.preventDefault(); go(k.shiftKey ? -1 : 1); }
    });
    document.getElementById('search-next').addEventListener('click', function () { go(1); });
    document.getElementById('search-prev').addEventListener('click', function () { go(-1); });
  }
  wire(body);
  wire(gutter);
  showView();
  window.loomTimeline = {relayout: relayout, setZoom: setZoom, search: search, go: go,
                         select: select, setOpen: setOpen};
})();
"""
