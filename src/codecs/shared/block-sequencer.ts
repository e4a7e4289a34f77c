/**
 * Puts the content blocks of a canonical stream one after another. The IR lets a choice keep
 * several blocks open at once (an A upstream streams parallel calls by `index` and may interleave
 * them); B clients expect one block at a time (start, deltas, stop, next start) and C clients get
 * parts in order. The sequencer keeps the first open block live and holds the events of later
 * blocks until the blocks before them end, so order is kept and nothing is lost. Upstreams that
 * stream blocks one by one (all real ones) pass straight through with no buffering.
 */
import type { StreamEvent } from '../../ir/index.ts';

export type BlockEvent = Extract<
  StreamEvent,
  { type: 'text-start' | 'text-delta' | 'text-end' | 'tool-call-start' | 'tool-call-delta' | 'tool-call-end' }
>;

interface Waiting {
  index: number;
  events: BlockEvent[];
  ended: boolean;
}

interface ChoiceBlocks {
  /** The block streaming live, or undefined. */
  active: number | undefined;
  activeKind: 'text' | 'tool';
  /** Blocks started while another was live, in start order. */
  waiting: Waiting[];
}

export function isBlockEvent(event: StreamEvent): event is BlockEvent {
  return (
    event.type === 'text-start' ||
    event.type === 'text-delta' ||
    event.type === 'text-end' ||
    event.type === 'tool-call-start' ||
    event.type === 'tool-call-delta' ||
    event.type === 'tool-call-end'
  );
}

export class BlockSequencer {
  readonly #choices = new Map<number, ChoiceBlocks>();

  /** Feeds one block event; `emit` receives the events that may go out now, in order. */
  add(event: BlockEvent, emit: (event: BlockEvent) => void): void {
    const state = this.#state(event.choice);
    if (state.active === event.index) {
      emit(event);
      if (isEnd(event)) {
        state.active = undefined;
        this.#drain(state, emit);
      }
      return;
    }
    const isStart = event.type === 'text-start' || event.type === 'tool-call-start';
    if (isStart && state.active === undefined && state.waiting.length === 0) {
      this.#activate(state, event);
      emit(event);
      return;
    }
    let waiting = state.waiting.find((entry) => entry.index === event.index);
    if (waiting === undefined) {
      if (!isStart) return; // A delta or end of a block never started: nothing to attach it to.
      waiting = { index: event.index, events: [], ended: false };
      state.waiting.push(waiting);
    }
    waiting.events.push(event);
    if (isEnd(event)) waiting.ended = true;
  }

  /**
   * The choice is finishing: every block still open or held goes out, in order, each closed (a
   * well-formed source closed them all already; this keeps a sloppy one well-formed too).
   */
  flush(choice: number, emit: (event: BlockEvent) => void): void {
    const state = this.#choices.get(choice);
    if (state === undefined) return;
    if (state.active !== undefined) emit(endOf(choice, state.active, state.activeKind));
    state.active = undefined;
    for (const waiting of state.waiting.splice(0)) {
      for (const event of waiting.events) emit(event);
      const first = waiting.events[0];
      if (!waiting.ended && first !== undefined)
        emit(endOf(choice, waiting.index, first.type === 'text-start' ? 'text' : 'tool'));
    }
  }

  #state(choice: number): ChoiceBlocks {
    let state = this.#choices.get(choice);
    if (state === undefined) {
      state = { active: undefined, activeKind: 'text', waiting: [] };
      this.#choices.set(choice, state);
    }
    return state;
  }

  #activate(state: ChoiceBlocks, start: BlockEvent): void {
    state.active = start.index;
    state.activeKind = start.type === 'text-start' ? 'text' : 'tool';
  }

  /** The live block ended: release held blocks in order until one is still open (it goes live). */
  #drain(state: ChoiceBlocks, emit: (event: BlockEvent) => void): void {
    while (state.active === undefined) {
      const next = state.waiting.shift();
      if (next === undefined) return;
      for (const event of next.events) emit(event);
      const first = next.events[0];
      if (!next.ended && first !== undefined) this.#activate(state, first);
    }
  }
}

function isEnd(event: BlockEvent): boolean {
  return event.type === 'text-end' || event.type === 'tool-call-end';
}

function endOf(choice: number, index: number, kind: 'text' | 'tool'): BlockEvent {
  return kind === 'text' ? { type: 'text-end', choice, index } : { type: 'tool-call-end', choice, index };
}
