/**
 * The keys page of the dashboard's browser script (see `app-script.ts`, which places this text
 * inside its own function scope: `el`, `api`, `table`, `show` and the formatters are its). Static
 * keys (MODELGATE_KEYS) are listed, marked static, with nothing to change: they live in the
 * environment, not the store. Plain JavaScript in a string, no template literals inside.
 */
export const keysPageSource = String.raw`
var periodNames = { daily: 'day', weekly: 'week', monthly: 'month' };

function periodBudget(key) {
  if (key.period_budget_usd === null || key.period_budget_usd === undefined) return '–';
  return usd(key.period_budget_usd) + ' / ' + periodNames[key.budget_period];
}

function renderKeys() {
  return api('keys?all=true').then(function (data) {
    var result = el('div', { 'data-role': 'created' });
    var form = el('form', { class: 'inline', 'data-form': 'create-key' }, [
      el('label', null, ['Name', el('input', { name: 'name', required: true, maxlength: '100' })]),
      el('label', null, ['Models (comma-separated, empty: all)', el('input', { name: 'models' })]),
      el('label', null, ['Budget USD (lifetime)', el('input', { name: 'budget_usd', type: 'number', min: '0', step: 'any' })]),
      el('label', null, ['Period budget USD', el('input', { name: 'period_budget_usd', type: 'number', min: '0', step: 'any' })]),
      el('label', null, ['Period (UTC)', el('select', { name: 'budget_period' }, ['daily', 'weekly', 'monthly'].map(function (name) {
        return el('option', { value: name, text: name }); }))]),
      el('label', null, ['Requests / min', el('input', { name: 'rpm', type: 'number', min: '1' })]),
      el('label', null, ['Tokens / min', el('input', { name: 'tpm', type: 'number', min: '1' })]),
      el('label', null, ['Expires (30d, 2026-12-31)', el('input', { name: 'expires' })]),
      el('button', { class: 'primary', type: 'submit', text: 'Create key' }),
    ]);
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = new FormData(form);
      var body = { name: String(fields.get('name')) };
      var models = String(fields.get('models') || '').split(',').map(function (name) { return name.trim(); }).filter(Boolean);
      if (models.length > 0) body.models = models;
      ['budget_usd', 'period_budget_usd', 'rpm', 'tpm'].forEach(function (name) { var value = String(fields.get(name) || ''); if (value !== '') body[name] = Number(value); });
      if (body.period_budget_usd !== undefined) body.budget_period = String(fields.get('budget_period'));
      var expires = String(fields.get('expires') || '').trim();
      if (expires !== '') body.expires = expires;
      api('keys', { method: 'POST', body: body }).then(function (created) {
        show().then(function () {
          var box = document.querySelector('[data-role="created"]');
          box.replaceChildren(el('div', { class: 'secret' }, [
            el('strong', { text: 'Key "' + created.name + '" created. Copy it now: it is shown only once.' }), el('br'),
            el('code', { 'data-secret': 'key', text: created.key }),
          ]));
        });
      }).catch(function (error) { result.replaceChildren(el('p', { class: 'error', text: error.message })); });
    });
    return [
      el('h1', { text: 'Keys' }),
      form,
      result,
      el('h2', { text: 'All keys' }),
      table([
        { title: 'name', key: 'name', value: function (key) {
          return key.static ? el('span', null, [key.name + ' ', el('span', { class: 'tag', 'data-static': key.name, title: 'From MODELGATE_KEYS: not editable here', text: 'static' })]) : key.name;
        } },
        { title: 'status', key: 'status', value: function (key) { return key.status; }, className: function (key) { return key.status === 'active' ? 'status-ok' : 'status-bad'; } },
        { title: 'models', value: function (key) { return key.models === null ? 'all' : key.models.join(', '); } },
        { title: 'rpm', num: true, value: function (key) { return key.rpm === null ? '–' : count(key.rpm); } },
        { title: 'tpm', num: true, value: function (key) { return key.tpm === null ? '–' : count(key.tpm); } },
        { title: 'budget', key: 'budget_usd', num: true, value: function (key) { return key.budget_usd === null ? '–' : usd(key.budget_usd); } },
        { title: 'spent', key: 'spent_usd', num: true, value: function (key) { return usd(key.spent_usd); }, raw: function (key) { return key.spent_usd; } },
        { title: 'period budget', key: 'period_budget', num: true, value: periodBudget },
        { title: 'spent this period', key: 'period_spent_usd', num: true, value: function (key) {
          return key.period_spent_usd === null || key.period_spent_usd === undefined ? '–' : usd(key.period_spent_usd); } },
        { title: 'expires', value: function (key) { return key.expires_at === null ? 'never' : key.expires_at.slice(0, 16).replace('T', ' '); } },
        { title: '', value: function (key) {
          if (key.static || key.status !== 'active') return '';
          return el('button', { class: 'danger', type: 'button', 'data-revoke': key.name, text: 'Revoke', onclick: function () {
            if (!confirm('Revoke key "' + key.name + '"? Its next request is refused.')) return;
            api('keys/' + encodeURIComponent(key.id), { method: 'DELETE' }).then(show).catch(function (error) { alert(error.message); });
          } });
        } },
      ], data.data, 'keys'),
    ];
  });
}
`;
