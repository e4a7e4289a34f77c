/**
 * Reading a Prometheus text exposition as a scraper would, enough of the format for assertions:
 * every sample with its labels, each metric declared (`# TYPE`) once.
 */
import assert from 'node:assert/strict';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const name = line.split(' ')[2] as string;
      assert.ok(!typed.has(name), `${name} is declared once`);
      typed.add(name);
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(match, `not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    samples.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of a metric's samples whose labels include `where`. */
export function sum(samples: readonly Sample[], name: string, where: Record<string, string> = {}): number {
  return samples
    .filter(
      (sample) =>
        sample.name === name &&
        Object.entries(where).every(([label, value]) => sample.labels[label] === value),
    )
    .reduce((total, sample) => total + sample.value, 0);
}
