/**
 * CPU time and peak memory of a server process, read from Linux /proc. CPU is utime+stime of the
 * whole process (all threads) in clock ticks; peak RSS is VmHWM. Off Linux every reading is null.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime in microseconds, or null when /proc is unavailable. */
export function cpuMicros(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may hold spaces or parentheses: count fields from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // fields 14 (utime) and 15 (stime)
    return Number.isFinite(ticks) ? (ticks * 1e6) / clockTicksPerSecond() : null;
  } catch {
    return null;
  }
}

/** VmHWM in kB (peak resident set), or null. */
export function peakRssKb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] === undefined ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/**
 * Reset VmHWM to the current RSS (clear_refs value 5, Linux >= 4.0) so the next reading is the
 * peak of one measurement rather than of the process's life. Returns false when not permitted.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
