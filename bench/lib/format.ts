/** Plain-text rendering of a Summary for the terminal. */
import type { Check, Row, Summary } from './report.ts';

function fixed(value: number | null, digits: number): string {
  return value === null || Number.isNaN(value) ? '-' : value.toFixed(digits);
}

function signed(value: number | null, digits: number): string {
  if (value === null || Number.isNaN(value)) return '-';
  return (value >= 0 ? '+' : '') + value.toFixed(digits);
}

function table(header: string[], lines: string[][], rightAligned: Set<number>): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)),
  );
  const render = (line: string[]): string =>
    line
      .map((text, column) => {
        const width = widths[column] ?? 0;
        return rightAligned.has(column) ? text.padStart(width) : text.padEnd(width);
      })
      .join('  ')
      .trimEnd();
  return [render(header), render(widths.map((width) => '-'.repeat(width))), ...lines.map(render)].join('\n');
}

function rowCells(row: Row): string[] {
  return [
    row.scenario,
    String(row.connections),
    row.target,
    fixed(row.requestsPerSecond, 0),
    fixed(row.p50Ms, 3),
    fixed(row.p99Ms, 3),
    signed(row.addedP50Ms, 3),
    fixed(row.cpuMicrosPerRequest, 0),
    fixed(row.peakRssMb, 1),
    String(row.failed),
  ];
}

function checkLine(check: Check): string {
  const verdict = check.pass === null ? 'SKIP' : check.pass ? 'PASS' : 'FAIL';
  const digits = check.unit === '%' ? 1 : 3;
  const relation = check.kind === 'min' ? '>=' : '<=';
  const value = check.unit === '%' ? fixed(check.value, digits) : signed(check.value, digits);
  const context = check.context === null ? '' : `; ${check.context}`;
  return `${verdict}  ${check.name}: ${value} ${check.unit} (target ${relation} ${check.limit} ${check.unit}${context})`;
}

export function formatSummary(summary: Summary): string {
  const header = [
    'scenario',
    'conns',
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    '+p50 ms',
    'CPU µs/req',
    'peak RSS MB',
    'failed',
  ];
  const parts = [table(header, summary.rows.map(rowCells), new Set([1, 3, 4, 5, 6, 7, 8, 9]))];
  if (summary.firstByte.length > 0) {
    const lines = summary.firstByte.map((entry) => [
      entry.target,
      fixed(entry.p50Ms, 3),
      fixed(entry.p99Ms, 3),
      fixed(entry.totalP50Ms, 3),
    ]);
    parts.push(
      'Stream time to first body byte (1 connection, sequential requests):\n' +
        table(['target', 'first byte p50 ms', 'p99 ms', 'whole stream p50 ms'], lines, new Set([1, 2, 3])),
    );
  }
  parts.push('Targets:\n' + summary.checks.map(checkLine).join('\n'));
  return parts.join('\n\n');
}
