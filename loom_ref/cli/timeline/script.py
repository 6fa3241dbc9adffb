"""The timeline page's behaviour, inline in every page (``html.py``): plain JavaScript, no
library, no network.

- A click (or Enter) on an event selects it, copies its payload from the event table into
  the details panel, and lights up the status it led to, and the arrow it took, in the state
  machine beside it.
- A click (or Enter) on a group's name opens or closes the group; the groups are stacked
  again, in the gutter and in the body alike, and what spans the body's height follows.
- Zoom scales the four SVGs of the picture together; ``fit`` puts every column in the width.
- The overview strip shows the part in view and scrolls the picture where it is clicked.
- Search marks the events whose seq, kind, status or lane matches, on the picture and on the
  strip, and steps from hit to hit (opening a hit's group and selecting it).
"""

from __future__ import annotations

__all__ = ["SCRIPT"]

SCRIPT = r"""
(function () {
  var scroll = document.getElementById('tl-scroll');
  var panel = document.getElementById('details');
  if (!scroll || !panel) return;
  var COL = +scroll.getAttribute('data-col'), GUTTER = +scroll.getAttribute('data-gutter');
  var svgs = Array.prototype.slice.call(scroll.querySelectorAll('svg[data-w]'));
  var body = scroll.querySelector('.tl-body-svg'), gutter = scroll.querySelector('.tl-gutter-svg');
  var zoom = 1;
  function attr(e, name) { return e.getAttribute(name); }
  function all(root, sel) { return Array.prototype.slice.call(root.querySelectorAll(sel)); }

  // -- groups --------------------------------------------------------------------------
  var pairs = all(body, 'g.grp').map(function (g) {
    return [g, gutter.querySelector('g.grp[data-group="' + attr(g, 'data-group') + '"]')];
  });
  function relayout() {
    var y = 0;
    pairs.forEach(function (pair) {
      var open = !pair[0].classList.contains('grp-closed');
      pair.forEach(function (g) {
        g.setAttribute('transform', 'translate(0,' + y + ')');
        var lanes = g.querySelector(':scope > .grp-lanes');
        if (lanes && open) lanes.removeAttribute('display');
        else if (lanes) lanes.setAttribute('display', 'none');
        var t = g.querySelector('.grp-toggle');
        if (t) {
          t.setAttribute('aria-expanded', open ? 'true' : 'false');
          var m = t.querySelector('.grp-mark'); if (m) m.textContent = open ? '\u25be' : '\u25b8';
        }
      });
      y += +attr(pair[0], open ? 'data-open-h' : 'data-closed-h');
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
      pair.forEach(function (g) { g.classList.toggle('grp-closed', !open); });
    });
  }
  all(gutter, '.grp-toggle').forEach(function (t) {
    function flip() {
      var g = t.closest('g.grp');
      setOpen(attr(g, 'data-group'), g.classList.contains('grp-closed'));
      relayout();
    }
    t.addEventListener('click', flip);
    t.addEventListener('keydown', function (k) {
      if (k.key === 'Enter' || k.key === ' ') { k.preventDefault(); flip(); }
    });
  });
  all(document, '[data-groups]').forEach(function (b) {
    b.addEventListener('click', function () {
      var open = attr(b, 'data-groups') === 'open';
      pairs.forEach(function (pair) {
        if (!pair[0].querySelector('.grp-row')) return;
        pair.forEach(function (g) { g.classList.toggle('grp-closed', !open); });
      });
      relayout();
    });
  });
  if (!gutter.querySelector('.grp-toggle')) {
    var tools = document.getElementById('groups-tools'); if (tools) tools.style.display = 'none';
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
  function setZoom(z, keepSeq) {
    var centre = keepSeq || visibleCentre();
    zoom = Math.max(0.02, Math.min(3, z));
    applyZoom();
    goToColumn(centre);
  }
  function visibleCentre() {
    return (scroll.scrollLeft + (scroll.clientWidth - GUTTER * zoom) / 2) / (COL * zoom);
  }
  function goToColumn(col) {
    scroll.scrollLeft = col * COL * zoom - (scroll.clientWidth - GUTTER * zoom) / 2;
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
      }
      else setZoom(1);
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
    if (!ev || !row) return;
    all(document, '.ev.selected').forEach(function (e) { e.classList.remove('selected'); });
    ev.classList.add('selected');
    panel.querySelector('.d-title').textContent = attr(row, 'data-title');
    panel.querySelector('.d-note').textContent = 'status after it: ' + attr(ev, 'data-status')
      + ' (the state machine beside this shows the arrow it took)';
    panel.querySelector('pre').textContent = row.querySelector('pre').textContent;
    all(document, '.sm-state').forEach(function (s) {
      s.classList.toggle('sm-current', attr(s, 'data-status') === attr(ev, 'data-status'));
    });
    all(document, '.sm-edge').forEach(function (e) {
      e.classList.toggle('sm-taken', attr(e, 'data-from') === attr(ev, 'data-before')
        && attr(e, 'data-kinds').split(' ').indexOf(attr(ev, 'data-kind')) >= 0);
    });
  }
  all(body, '.ev').forEach(function (e) {
    e.addEventListener('click', function () { select(attr(e, 'data-seq')); });
    e.addEventListener('keydown', function (k) {
      if (k.key === 'Enter' || k.key === ' ') { k.preventDefault(); select(attr(e, 'data-seq')); }
    });
  });

  // -- search ------------------------------------------------------------------------
  var input = document.getElementById('search'), count = document.getElementById('search-count');
  var hitsPath = document.getElementById('ov-hits');
  var hits = [], at = -1;
  function matches(ev, q) {
    if (/^#?\d+$/.test(q)) return attr(ev, 'data-seq') === q.replace('#', '');
    var lane = attr(ev, 'data-lane').toLowerCase();
    return attr(ev, 'data-kind').toLowerCase().indexOf(q) >= 0 || lane.indexOf(q) >= 0
      || attr(ev, 'data-status') === q;
  }
  function search() {
    var q = input.value.trim().toLowerCase();
    all(body, '.ev.found').forEach(function (e) { e.classList.remove('found'); });
    hits = q ? all(body, '.ev').filter(function (e) { return matches(e, q); }) : [];
    hits.forEach(function (e) { e.classList.add('found'); });
    at = -1;
    if (count) count.textContent = q ? hits.length + ' event(s)' : '';
    if (hitsPath) hitsPath.setAttribute('d', hits.map(function (e) {
      return 'M' + (attr(e, 'data-seq') - 0.5) + ',0V22';
    }).join(''));
  }
  function go(step) {
    if (!hits.length) return;
    at = (at + step + hits.length) % hits.length;
    var ev = hits[at], g = ev.closest('g.grp');
    if (g && g.classList.contains('grp-closed')) {
      setOpen(attr(g, 'data-group'), true);
      relayout();
    }
    select(attr(ev, 'data-seq'));
    goToColumn(attr(ev, 'data-seq') - 0.5);
    var r = ev.getBoundingClientRect(), s = scroll.getBoundingClientRect();
    scroll.scrollTop += (r.top - s.top) - scroll.clientHeight / 2;
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
  showView();
  window.loomTimeline = {relayout: relayout, setZoom: setZoom, search: search, go: go,
                         select: select, setOpen: setOpen};
})();
"""
