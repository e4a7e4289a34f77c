/** Plain-text table and issue-25 targets for the open-loop rows. */
import type { OpenLoopRow } from './open-loop.ts';

function fixed(value: number | null, digits: number): string {
  return value === null || Number.isNaN(value) ? '-' : value.toFixed(digits);
}

function signed(value: number | null, digits: number): string {
  if (value === null || Number.isNaN(value)) return '-';
  return (value >= 0 ? '+' : '') + value.toFixed(digits);
}

export interface OpenLoopCheck {
  name: string;
  valueMs: number;
  limitMs: number;
  pass: boolean | null;
}

/**
 * Issue 25, target 1: at 1,000/s modelgate's added p50 ≤ 0.25 ms and its added p99 ≤ 0.5 ms above
 * the bare proxy's; at 3,000/s ≤ 1 ms above. Rates other than these get no verdict.
 */
export function openLoopChecks(rows: readonly OpenLoopRow[]): OpenLoopCheck[] {
  const checks: OpenLoopCheck[] = [];
  const verdict = (name: string, valueMs: number | null, limitMs: number): void => {
    const value = valueMs ?? Number.NaN;
    checks.push({ name, valueMs: value, limitMs, pass: Number.isNaN(value) ? null : value <= limitMs });
  };
  for (const row of rows) {
    if (row.target !== 'modelgate') continue;
    const what = row.scenario === 'cross-stream' ? `${row.scenario} first byte` : row.scenario;
    if (row.rate === 1000) {
      verdict(`${what} @1000/s added p50`, row.addedP50Ms, 0.25);
      verdict(`${what} @1000/s p99 beyond bare`, row.p99BeyondBareMs, 0.5);
    } else if (row.rate === 3000) {
      verdict(`${what} @3000/s p99 beyond bare`, row.p99BeyondBareMs, 1);
    }
  }
  return checks;
}

export function formatOpenLoop(rows: readonly OpenLoopRow[]): string {
  const header = [
    'scenario',
    'rate/s',
    'target',
    'p50 ms',
    'p99 ms',
    '+p50 ms',
    '+p99 ms',
    'p99 − bare',
    'CPU µs/req',
    'conns+',
    'saturated',
  ];
  const lines = rows.map((row) => [
    row.scenario + (row.scenario === 'cross-stream' ? ' (1st byte)' : ''),
    String(row.rate),
    row.target,
    fixed(row.p50Ms, 3),
    fixed(row.p99Ms, 3),
    signed(row.addedP50Ms, 3),
    signed(row.addedP99Ms, 3),
    signed(row.p99BeyondBareMs, 3),
    fixed(row.cpuMicrosPerRequest, 1),
    String(row.maxConnectionsOpened),
    row.saturatedReps > 0 ? `${row.saturatedReps} rep(s)` : '',
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const render = (line: readonly string[]): string =>
    line
      .map((text, column) =>
        column < 3 ? text.padEnd(widths[column] ?? 0) : text.padStart(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  const table = [render(header), render(widths.map((width) => '-'.repeat(width))), ...lines.map(render)];
  const checks = openLoopChecks(rows).map(
    (check) =>
      `${check.pass === null ? 'n/a ' : check.pass ? 'PASS' : 'FAIL'}  ${check.name}: ` +
      `${signed(check.valueMs, 3)} ms (limit ${check.limitMs} ms)`,
  );
  return [
    'Open loop (latency from the intended send time; added = target − direct per rep, then median):',
    ...table,
    '',
    ...checks,
  ].join('\n');
}
