/** Query-string parameters of GET routes (model lists): bad values are 400s naming the parameter. */
import { invalidRequest } from '../../ir/index.ts';

/** A whole number in [min, max]; `fallback` when absent or empty. */
export function queryInteger(
  searchParams: URLSearchParams,
  name: string,
  min: number,
  max: number,
  fallback: number,
): number {
  const text = searchParams.get(name);
  if (text === null || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidRequest(`${name}: must be a whole number from ${min} to ${max}`, name);
  }
  return value;
}

/** A non-empty text parameter, or undefined. */
export function queryText(searchParams: URLSearchParams, name: string): string | undefined {
  const text = searchParams.get(name);
  return text === null || text === '' ? undefined : text;
}
