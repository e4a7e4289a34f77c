/** SSE serialisation: one place that knows the framing. */
export function sseData(data: string): string {
  return `data: ${data}\n\n`;
}

export function sseEvent(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
