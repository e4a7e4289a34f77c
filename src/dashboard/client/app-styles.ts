/** The dashboard's stylesheet (served as /dashboard/assets/app.css). */
export const appStyles = String.raw`
:root { --bg: #f6f7f9; --panel: #fff; --ink: #1c2430; --muted: #667085; --line: #e3e6eb; --accent: #2f6fde; --bad: #c4321c; --good: #1f8a4c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--ink); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #16202e; color: #fff; }
header .brand { font-weight: 700; letter-spacing: .02em; }
header nav { display: flex; gap: 4px; flex: 1; flex-wrap: wrap; }
header nav a { color: #c9d3e3; text-decoration: none; padding: 6px 10px; border-radius: 6px; }
header nav a.active, header nav a:hover { background: #2a3a52; color: #fff; }
button { font: inherit; padding: 6px 12px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: var(--ink); cursor: pointer; }
button.primary, .login button { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger { color: var(--bad); border-color: #efc2ba; }
header button { background: transparent; color: #c9d3e3; border-color: #3a4a62; }
main { padding: 20px 24px 40px; max-width: 1400px; margin: 0 auto; }
h1 { font-size: 20px; margin: 0 0 16px; }
h2 { font-size: 15px; margin: 24px 0 10px; }
.toolbar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin-bottom: 16px; }
.toolbar label { color: var(--muted); }
select, input { font: inherit; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 12px; margin-bottom: 16px; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; margin-top: 4px; font-variant-numeric: tabular-nums; }
.charts { margin-top: 12px; display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px; }
.chart { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 10px 12px; min-width: 0; }
.chart h3 { margin: 0 0 6px; font-size: 13px; font-weight: 600; }
table { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 12px; color: var(--muted); font-weight: 600; background: #fafbfc; }
td.num, th.num { text-align: right; }
tr:last-child td { border-bottom: 0; }
.table-wrap { overflow-x: auto; }
.status-ok, .state-closed { color: var(--good); }
.status-bad, .state-open { color: var(--bad); }
.state-half-open { color: #b7791f; }
.empty { color: var(--muted); padding: 16px; }
.error { color: var(--bad); }
.secret { background: #fff8e1; border: 1px solid #f0d68a; padding: 12px; border-radius: 8px; margin: 12px 0; word-break: break-all; }
.secret code { font-size: 15px; }
form.inline { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 10px; align-items: end; background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px; }
form.inline label { display: flex; flex-direction: column; gap: 4px; color: var(--muted); font-size: 12px; }
.login { max-width: 360px; margin: 12vh auto; background: var(--panel); border: 1px solid var(--line); border-radius: 12px; padding: 28px; }
.login form { display: flex; flex-direction: column; gap: 10px; }
.login .notice { color: var(--bad); margin: 0; }
.login .hint { color: var(--muted); font-size: 12px; margin: 0; }
.pager { display: flex; gap: 8px; margin-top: 10px; }
.muted { color: var(--muted); }
.tag { font-size: 11px; padding: 1px 6px; border-radius: 8px; background: #eef2f8; color: var(--muted); }
tr.opens { cursor: pointer; }
tr.opens:hover, tr.opens:focus { background: #f2f6fd; outline: none; }
.detail { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 16px; margin-top: 16px; }
.detail-head { display: flex; justify-content: space-between; align-items: center; }
.detail-head h2 { margin: 0; }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 12px 0 0; }
.detail dt { color: var(--muted); }
.detail dd { margin: 0; font-variant-numeric: tabular-nums; word-break: break-all; }
`;
