/**
 * The requests and live-tail pages of the dashboard's browser script (see `app-script.ts`, which
 * places this text inside its own function scope: `el`, `api`, `table`, `show` and the formatters
 * are its). Plain JavaScript in a string, no template literals inside.
 */
export const requestPagesSource = String.raw`
var requestFilter = {};
var requestColumns = [
  { title: 'time (UTC)', value: function (row) { return row.created_at.slice(0, 19).replace('T', ' '); } },
  { title: 'request', value: function (row) { return row.request_id + (row.attempt > 1 ? ' #' + row.attempt : ''); } },
  { title: 'key', key: 'key', value: function (row) { return row.key; } },
  { title: 'surface', key: 'surface', value: function (row) { return row.surface; } },
  { title: 'model', key: 'model', value: function (row) { return row.model; } },
  { title: 'status', key: 'status', num: true, value: function (row) { return String(row.status); } },
  { title: 'upstream', key: 'upstream_status', num: true, value: function (row) { return orDash(row.upstream_status); } },
  { title: 'outcome', key: 'outcome', value: function (row) { return row.outcome + (row.error ? ' (' + row.error + ')' : ''); }, className: function (row) { return row.outcome === 'ok' ? 'status-ok' : 'status-bad'; } },
  { title: 'prompt', key: 'prompt_tokens', num: true, value: function (row) { return count(row.prompt_tokens); } },
  { title: 'output', key: 'output_tokens', num: true, value: function (row) { return count(row.output_tokens); } },
  { title: 'cost (USD)', key: 'cost_usd', num: true, value: function (row) { return usd(row.cost_usd); }, raw: function (row) { return row.cost_usd; } },
  { title: 'latency', num: true, value: function (row) { return ms(row.latency_ms); } },
];

function orDash(value) { return value === null || value === undefined ? '–' : String(value); }

/** Every ledger field of one row (the ledger keeps no bodies), as label and value. */
function requestDetail(row) {
  var fields = [
    ['request id', row.request_id], ['attempt', String(row.attempt) + (row.final ? ' (final)' : '')],
    ['time (UTC)', row.created_at.replace('T', ' ').replace('Z', '')],
    ['key', row.key + (row.key !== row.key_id ? ' (' + row.key_id + ')' : '')],
    ['surface', row.surface], ['model', row.model], ['family', row.family], ['deployment', orDash(row.deployment)],
    ['stream', row.stream ? 'yes' : 'no'], ['status', String(row.status)], ['upstream status', orDash(row.upstream_status)],
    ['outcome', row.outcome], ['error', orDash(row.error)],
    ['prompt tokens', count(row.prompt_tokens)], ['cached tokens', count(row.cached_tokens)],
    ['cache write tokens', count(row.cache_write_tokens)], ['output tokens', count(row.output_tokens)],
    ['cost', usd(row.cost_usd)], ['latency', ms(row.latency_ms)], ['time to first token', ms(row.ttft_ms)],
    ['gateway overhead', ms(row.overhead_ms)],
  ];
  var list = el('dl', null, []);
  fields.forEach(function (field) {
    list.appendChild(el('dt', { text: field[0] }));
    list.appendChild(el('dd', { 'data-field': field[0], text: field[1] }));
  });
  return el('section', { class: 'detail', 'data-role': 'request-detail' }, [
    el('div', { class: 'detail-head' }, [
      el('h2', { text: 'Request ' + row.request_id }),
      el('button', { type: 'button', 'data-action': 'close-detail', text: 'Close', onclick: function (event) { event.target.closest('section').remove(); } }),
    ]),
    list,
  ]);
}

function renderRequests() {
  var query = Object.keys(requestFilter).filter(function (name) { return requestFilter[name]; })
    .map(function (name) { return name + '=' + encodeURIComponent(requestFilter[name]); }).join('&');
  return api('requests?' + query).then(function (data) {
    var form = el('form', { class: 'inline', 'data-form': 'filter' }, [
      el('label', null, ['Key (name or id)', el('input', { name: 'key', value: requestFilter.key || '' })]),
      el('label', null, ['Model', el('input', { name: 'model', value: requestFilter.model || '' })]),
      el('label', null, ['Surface', el('select', { name: 'surface' }, SURFACE_CHOICES.map(function (name) {
        return el('option', { value: name, selected: (requestFilter.surface || '') === name, text: name || 'any' }); }))]),
      el('label', null, ['Outcome', el('select', { name: 'outcome' }, ['', 'ok', 'error', 'failed', 'aborted', 'rejected'].map(function (name) {
        return el('option', { value: name, selected: (requestFilter.outcome || '') === name, text: name || 'any' }); }))]),
      el('button', { class: 'primary', type: 'submit', text: 'Filter' }),
    ]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = new FormData(form);
      requestFilter = { key: fields.get('key'), model: fields.get('model'), surface: fields.get('surface'), outcome: fields.get('outcome') };
      show();
    });
    var pager = el('div', { class: 'pager' }, [
      requestFilter.before ? el('button', { type: 'button', text: 'Newest', onclick: function () { delete requestFilter.before; show(); } }) : null,
      data.next_before ? el('button', { type: 'button', 'data-page': 'older', text: 'Older', onclick: function () { requestFilter.before = data.next_before; show(); } }) : null,
    ]);
    var partial = data.next_before && data.data.length < 50
      ? el('p', { class: 'muted', text: 'Searched part of the ledger: older rows may match (Older searches further back).' }) : null;
    var detail = el('div', { 'data-role': 'detail-holder' });
    var rows = table(requestColumns, data.data, 'requests', function (row) { detail.replaceChildren(requestDetail(row)); });
    return [el('h1', { text: 'Requests' }), form, el('h2', { text: 'Ledger rows, newest first (no bodies are kept; open a row for all its fields)' }), rows, partial, pager, detail];
  });
}

function renderTail() {
  var rows = [];
  var body = el('tbody');
  var status = el('span', { class: 'muted', 'data-role': 'tail-status', text: 'connecting…' });
  var source = new EventSource('/dashboard/api/tail');
  source.onopen = function () { status.textContent = 'live'; };
  source.onerror = function () { status.textContent = 'disconnected (retrying)'; };
  source.addEventListener('row', function (event) {
    var row = JSON.parse(event.data);
    rows.unshift(row);
    var cells = [row.created_at.slice(11, 19), row.request_id, row.key_id, row.surface, row.model, String(row.status), row.outcome,
      count(row.prompt_tokens), count(row.output_tokens), usd(row.cost_usd), ms(row.latency_ms)];
    body.insertBefore(el('tr', null, cells.map(function (cell) { return el('td', { text: cell }); })), body.firstChild);
    while (body.children.length > 200) body.removeChild(body.lastChild);
  });
  cleanups.push(function () { source.close(); });
  var head = el('tr', null, ['time', 'request', 'key', 'surface', 'model', 'status', 'outcome', 'prompt', 'output', 'cost', 'latency'].map(function (title) { return el('th', { text: title }); }));
  return Promise.resolve([
    el('h1', { text: 'Live tail' }),
    el('div', { class: 'toolbar' }, [status, el('span', { class: 'muted', text: 'Ledger rows as they are recorded (last 200).' })]),
    el('div', { class: 'table-wrap' }, [el('table', { 'data-table': 'tail' }, [el('thead', null, [head]), body])]),
  ]);
}
`;
