/**
 * The one formatter for money shown to people (dashboard, CLI, budget refusals): whole cents from
 * a dollar up, three significant digits below it — a request costs fractions of a cent, and a sum
 * of floats carries noise (`0.000015074999999999999`) nobody should read. The dashboard's browser
 * script embeds this function's own source, so it must stay self-contained (no imports, no
 * module-level names).
 */
export function formatUsd(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const magnitude = Math.abs(value);
  const digits =
    magnitude >= 1 || magnitude === 0
      ? { minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : { maximumSignificantDigits: 3 };
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', ...digits }).format(value);
}
