/**
 * The dashboard's browser code (served as /dashboard/assets/app.js): hash-routed pages drawn from
 * the dashboard API, charts with uPlot. Plain JavaScript in a string (no build step, no template
 * literals inside); every request goes to this origin, every change carries the CSRF token.
 */
import { formatUsd } from '../../usage/money.ts';
import { keysPageSource } from './keys-script.ts';
import { requestPagesSource } from './requests-script.ts';

/**
 * The script, its requests page's surface filter offering these surfaces (the registry's) besides
 * `unified`, the ledger's name for the unified path.
 */
export function appScript(surfaceIds: readonly string[]): string {
  return appSource
    .replace('KEYS_PAGE', keysPageSource)
    .replace('REQUEST_PAGES', requestPagesSource)
    .replace('FORMAT_USD', formatUsd.toString())
    .replace('SURFACE_CHOICES', JSON.stringify(['', 'unified', ...surfaceIds]));
}

const appSource = String.raw`(function () {
'use strict';
var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
var main = document.getElementById('main');
var charts = [];
var cleanups = [];
var palette = ['#2f6fde', '#e0782f', '#1f8a4c', '#c4321c', '#7b4fd6', '#0f9aa8', '#b7791f', '#d6407d', '#667085'];

function el(tag, attributes, children) {
  var node = document.createElement(tag);
  if (attributes) Object.keys(attributes).forEach(function (name) {
    var value = attributes[name];
    if (value === undefined || value === null || value === false) return;
    if (name === 'text') node.textContent = value;
    else if (name.slice(0, 2) === 'on') node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : value);
  });
  (children || []).forEach(function (child) {
    if (child === null || child === undefined) return;
    node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  });
  return node;
}

function api(path, options) {
  options = options || {};
  var headers = { accept: 'application/json' };
  if (options.method && options.method !== 'GET') headers['x-csrf-token'] = csrf;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch('/dashboard/api/' + path, {
    method: options.method || 'GET',
    headers: headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
  }).then(function (response) {
    if (response.status === 401) { location.href = '/dashboard/login'; throw new Error('signed out'); }
    return response.json().then(function (body) {
      if (!response.ok) throw new Error((body && body.error && body.error.message) || ('HTTP ' + response.status));
      return body;
    });
  });
}

var integer = new Intl.NumberFormat('en-US');
function count(value) { return integer.format(value); }
// Money: the gateway's one formatter (usage/money.ts), its source embedded here.
FORMAT_USD
var usd = formatUsd;
function percent(value) { return (value * 100).toFixed(value > 0 && value < 0.01 ? 2 : 1) + '%'; }
function ms(value) { return value === null || value === undefined ? '–' : (value >= 1000 ? (value / 1000).toFixed(2) + ' s' : value.toFixed(1) + ' ms'); }
function rate(value) { return value >= 10 ? value.toFixed(1) : value >= 0.01 || value === 0 ? value.toFixed(3) : value.toPrecision(2); }

function card(label, value, name) {
  return el('div', { class: 'card', 'data-metric': name }, [
    el('div', { class: 'label', text: label }),
    el('div', { class: 'value', text: value }),
  ]);
}

/** A table of rows; with onRow, a row opens (click or Enter) whatever onRow draws for it. */
function table(columns, rows, name, onRow) {
  if (rows.length === 0) return el('p', { class: 'empty', 'data-table': name, text: 'Nothing in this range yet.' });
  var head = el('tr', null, columns.map(function (column) {
    return el('th', { class: column.num ? 'num' : null, text: column.title });
  }));
  var body = rows.map(function (row) {
    var open = onRow ? function (event) { if (event.type === 'click' || event.key === 'Enter') onRow(row); } : null;
    return el('tr', { class: onRow ? 'opens' : null, tabindex: onRow ? '0' : null, onclick: open, onkeydown: open }, columns.map(function (column) {
      var value = column.value(row);
      // The exact figure behind a rounded one (money), for whoever checks the page against the ledger.
      var cell = el('td', { class: (column.num ? 'num ' : '') + (column.className ? column.className(row) : ''), 'data-column': column.key || null,
        'data-value': column.raw ? String(column.raw(row)) : null });
      if (value instanceof Node) cell.appendChild(value); else cell.textContent = value;
      return cell;
    }));
  });
  return el('div', { class: 'table-wrap' }, [el('table', { 'data-table': name }, [el('thead', null, [head]), el('tbody', null, body)])]);
}

var formats = { usd: usd, percent: percent, ms: ms, count: count, rate: rate };

/** Axis labels with as many decimals as the tick step needs (uPlot passes the step). */
function axisValues(kind) {
  return function (u, splits, axisIndex, space, step) {
    var scaled = kind === 'percent' ? step * 100 : step;
    var digits = scaled > 0 && scaled < 1 ? Math.min(8, Math.ceil(-Math.log10(scaled) - 1e-9)) : 0;
    return splits.map(function (value) {
      if (value === null || value === undefined) return '';
      if (kind === 'usd') return '$' + value.toFixed(digits);
      if (kind === 'percent') return (value * 100).toFixed(digits) + '%';
      if (kind === 'ms') return value.toFixed(digits) + ' ms';
      return value.toFixed(digits);
    });
  };
}

function chart(title, times, lines, kind, name) {
  var format = formats[kind];
  // Each line's sum, for whoever checks the chart against the ledger (the browser tests do).
  var sums = lines.map(function (line) { return line.values.reduce(function (total, value) { return total + (value || 0); }, 0); });
  var box = el('div', { class: 'chart', 'data-chart': name, 'data-sums': JSON.stringify(sums) }, [el('h3', { text: title })]);
  var holder = el('div');
  box.appendChild(holder);
  requestAnimationFrame(function () {
    var width = Math.max(300, holder.clientWidth || 560);
    var plot = new uPlot({
      width: width,
      height: 220,
      // A rate (errors) is drawn from 0 to at most 100 %, whatever the data (an empty series too).
      scales: kind === 'percent'
        ? { x: { time: true }, y: { range: function (u, min, max) { return [0, max > 0 ? Math.min(1, max * 1.1) : 1]; } } }
        : { x: { time: true } },
      axes: [{}, { values: axisValues(kind), size: 80 }],
      // The y axis as drawn, for whoever checks it (the browser tests do).
      hooks: { setScale: [function (u, key) { if (key === 'y') box.setAttribute('data-y-range', JSON.stringify([u.scales.y.min, u.scales.y.max])); }] },
      series: [{}].concat(lines.map(function (line, index) {
        // Sparse lines (a few buckets with data) are drawn as points too: a lone bucket has no line.
        var filled = line.values.filter(function (value) { return value !== null && value !== 0; }).length;
        return { label: line.label, stroke: palette[index % palette.length], width: 1.5,
          points: { show: filled > 0 && filled < 60, size: 6 },
          value: function (u, v) { return v === null || v === undefined ? '–' : format(v); } };
      })),
    }, [times].concat(lines.map(function (line) { return line.values; })), holder);
    charts.push(plot);
  });
  return box;
}

function rangePicker(current, onChange) {
  return el('label', null, ['Range ', el('select', { 'data-control': 'range', onchange: function (event) { onChange(event.target.value); } },
    ['1h', '24h', '7d', '30d'].map(function (name) { return el('option', { value: name, selected: name === current, text: name }); }))]);
}

var state = { range: '1h', by: 'key' };

function renderOverview() {
  return api('overview?range=' + state.range).then(function (data) {
    var totals = data.totals;
    var series = data.series;
    var t = series.t;
    return [
      el('h1', { text: 'Overview' }),
      el('div', { class: 'toolbar' }, [rangePicker(state.range, function (value) { state.range = value; show(); })]),
      el('div', { class: 'cards' }, [
        card('Requests', count(totals.requests), 'requests'),
        card('Requests / s (avg)', rate(totals.requests_per_s), 'requests_per_s'),
        card('Error rate', percent(totals.error_rate), 'error_rate'),
        card('Prompt tokens', count(totals.prompt_tokens), 'prompt_tokens'),
        card('Output tokens', count(totals.output_tokens), 'output_tokens'),
        card('Cache-hit ratio', percent(totals.cache_hit_ratio), 'cache_hit_ratio'),
        card('Spend (range)', usd(totals.cost_usd), 'cost_usd'),
        card('Spend today (UTC)', usd(data.spend.today_usd), 'spend_today'),
        card('Spend this month', usd(data.spend.month_usd), 'spend_month'),
      ]),
      el('div', { class: 'charts' }, [
        chart('Requests per second', t, [{ label: 'req/s', values: series.requests_per_s }], 'rate', 'requests'),
        chart('Error rate', t, [{ label: 'errors', values: series.error_rate }], 'percent', 'errors'),
        chart('Latency', t, [
          { label: 'p50', values: series.latency_p50 }, { label: 'p95', values: series.latency_p95 }, { label: 'p99', values: series.latency_p99 },
        ], 'ms', 'latency'),
        chart('Time to first token', t, [
          { label: 'p50', values: series.ttft_p50 }, { label: 'p95', values: series.ttft_p95 }, { label: 'p99', values: series.ttft_p99 },
        ], 'ms', 'ttft'),
        chart('Tokens', t, [
          { label: 'prompt', values: series.prompt_tokens }, { label: 'output', values: series.output_tokens }, { label: 'cached', values: series.cached_tokens },
        ], 'count', 'tokens'),
      ]),
    ];
  });
}

function renderUsage() {
  return api('usage?range=' + state.range + '&by=' + state.by).then(function (data) {
    var series = data.series;
    var lines = function (values) { return series.names.map(function (name, index) { return { label: name, values: values[index] }; }); };
    var budgets = data.budgets;
    return [
      el('h1', { text: 'Usage and spend' }),
      el('div', { class: 'toolbar' }, [
        rangePicker(state.range, function (value) { state.range = value; show(); }),
        el('label', null, ['By ', el('select', { 'data-control': 'by', onchange: function (event) { state.by = event.target.value; show(); } },
          ['key', 'model', 'family'].map(function (name) { return el('option', { value: name, selected: name === state.by, text: name }); }))]),
      ]),
      table([
        { title: state.by, key: 'group', value: function (row) { return row[data.by]; } },
        { title: 'requests', key: 'requests', num: true, value: function (row) { return count(row.requests); } },
        { title: 'errors', key: 'errors', num: true, value: function (row) { return count(row.errors); } },
        { title: 'prompt', key: 'prompt_tokens', num: true, value: function (row) { return count(row.prompt_tokens); } },
        { title: 'cached', key: 'cached_tokens', num: true, value: function (row) { return count(row.cached_tokens); } },
        { title: 'cache write', key: 'cache_write_tokens', num: true, value: function (row) { return count(row.cache_write_tokens); } },
        { title: 'output', key: 'output_tokens', num: true, value: function (row) { return count(row.output_tokens); } },
        { title: 'cost (USD)', key: 'cost_usd', num: true, value: function (row) { return usd(row.cost_usd); }, raw: function (row) { return row.cost_usd; } },
      ], data.data, 'usage'),
      el('div', { class: 'charts' }, [
        chart('Spend by ' + state.by, series.t, lines(series.cost_usd), 'usd', 'spend'),
        chart('Tokens by ' + state.by, series.t, lines(series.tokens), 'count', 'usage-tokens'),
        budgets.keys.length === 0
          ? el('div', { class: 'chart', 'data-chart': 'budget' }, [el('h3', { text: 'Budget burn-down' }), el('p', { class: 'empty', text: 'No active key has a budget.' })])
          : chart('Budget burn-down (remaining)', budgets.t, budgets.keys.map(function (key) { return { label: key.name, values: key.remaining_usd }; }), 'usd', 'budget'),
      ]),
    ];
  });
}

KEYS_PAGE
function breakerClass(state) { return 'state-' + state; }

function renderModels() {
  return api('models?range=' + state.range).then(function (data) {
    var deployments = [];
    ((data.health && data.health.models) || []).forEach(function (model) {
      model.deployments.forEach(function (deployment) { deployments.push({ model: model, deployment: deployment }); });
    });
    return [
      el('h1', { text: 'Models and deployments' }),
      el('div', { class: 'toolbar' }, [
        rangePicker(state.range, function (value) { state.range = value; show(); }),
        el('span', { class: 'muted', text: data.health ? ('Gateway ' + data.health.status + ', ' + data.health.open_circuits + ' open circuit(s), ' + (data.health.misconfigured_deployments || 0) + ' misconfigured, ' + (data.health.in_flight || 0) + ' in flight') : '' }),
      ]),
      el('h2', { text: 'Health now' }),
      table([
        { title: 'model', value: function (row) { return row.model.model; } },
        { title: 'family', value: function (row) { return row.model.family; } },
        { title: 'deployment', value: function (row) { return row.deployment.id; } },
        { title: 'upstream', value: function (row) { return row.deployment.upstream + ' · ' + row.deployment.upstream_model; } },
        { title: 'breaker', key: 'breaker', value: function (row) { return row.deployment.breaker.state + (row.deployment.misconfigured ? ' · misconfigured' : ''); }, className: function (row) { return breakerClass(row.deployment.misconfigured ? 'open' : row.deployment.breaker.state); } },
        { title: 'last status', num: true, value: function (row) { return row.deployment.last_status ? String(row.deployment.last_status) : '–'; } },
        { title: 'in flight', num: true, value: function (row) { return count(row.deployment.in_flight); } },
        { title: 'calls', num: true, value: function (row) { return count(row.deployment.calls); } },
        { title: 'failures', num: true, value: function (row) { return count(row.deployment.failures); } },
        { title: 'fallbacks', value: function (row) { return row.model.fallbacks.join(', ') || '–'; } },
      ], deployments, 'health'),
      el('h2', { text: 'Traffic in range' }),
      table([
        { title: 'model', key: 'model', value: function (row) { return row.model; } },
        { title: 'deployment', value: function (row) { return row.deployment || '–'; } },
        { title: 'requests', key: 'requests', num: true, value: function (row) { return count(row.requests); } },
        { title: 'attempts', num: true, value: function (row) { return count(row.attempts); } },
        { title: 'error rate', num: true, value: function (row) { return percent(row.error_rate); } },
        { title: 'retry rate', num: true, value: function (row) { return percent(row.retry_rate); } },
        { title: 'fallback rate', num: true, value: function (row) { return percent(row.fallback_rate); } },
        { title: 'overhead (avg)', num: true, value: function (row) { return ms(row.overhead_ms_avg); } },
        { title: 'latency p95', num: true, value: function (row) { return ms(row.latency_p95_ms); } },
        { title: 'TTFT p95', num: true, value: function (row) { return ms(row.ttft_p95_ms); } },
      ], data.data, 'model-stats'),
    ];
  });
}

REQUEST_PAGES
var pages = { overview: renderOverview, usage: renderUsage, keys: renderKeys, models: renderModels, requests: renderRequests, tail: renderTail };

function show() {
  var name = location.hash.slice(1) || 'overview';
  if (!pages[name]) name = 'overview';
  cleanups.forEach(function (cleanup) { cleanup(); });
  cleanups = [];
  document.querySelectorAll('header nav a').forEach(function (link) { link.classList.toggle('active', link.getAttribute('data-page') === name); });
  return pages[name]().then(function (nodes) {
    charts.forEach(function (plot) { plot.destroy(); });
    charts = [];
    // A page leaves out what it has nothing for (null): never drawn, not even as text.
    main.replaceChildren.apply(main, nodes.filter(function (node) { return node !== null && node !== undefined; }));
    main.setAttribute('data-page', name);
  }).catch(function (error) {
    main.replaceChildren(el('p', { class: 'error', text: error.message }));
  });
}

document.getElementById('sign-out').addEventListener('click', function () {
  fetch('/dashboard/logout', { method: 'POST', headers: { 'x-csrf-token': csrf }, credentials: 'same-origin' })
    .finally(function () { location.href = '/dashboard/login'; });
});
window.addEventListener('hashchange', show);
show();
})();
`;
