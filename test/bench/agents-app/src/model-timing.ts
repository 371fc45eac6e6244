import type { BaseMessage } from '@langchain/core/messages';

/** How the fake model streams its answer: this many tokens, one every `intervalMs`. */
export interface ModelTiming {
  readonly tokens: number;
  readonly intervalMs: number;
}

/** About 3 s of streaming per answer. */
export const DEFAULT_TIMING: ModelTiming = { tokens: 60, intervalMs: 50 };

/** The run's configurable keys that set the timing (`token_count`, `token_interval_ms`). */
export function timingOf(configurable: Readonly<Record<string, unknown>> | undefined): ModelTiming {
  const tokens = configurable?.['token_count'];
  const intervalMs = configurable?.['token_interval_ms'];
  return {
    tokens: typeof tokens === 'number' && tokens >= 1 ? tokens : DEFAULT_TIMING.tokens,
    intervalMs:
      typeof intervalMs === 'number' && intervalMs >= 0 ? intervalMs : DEFAULT_TIMING.intervalMs,
  };
}

/** What a run's `configurable` carries to ask for `timing`. */
export function timingConfigurable(timing: ModelTiming): Record<string, number> {
  return { token_count: timing.tokens, token_interval_ms: timing.intervalMs };
}

/**
 * On every other turn (an even count of human messages) the model first calls its tool, unless
 * it is already answering the tool's result.
 */
export function callsToolFirst(messages: readonly BaseMessage[]): boolean {
  const last = messages.at(-1);
  if (last === undefined || last.type === 'tool') return false;
  const humans = messages.filter((message) => message.type === 'human').length;
  return humans % 2 === 0;
}

/**
 * The model's own share of a run, from its start: its first text token (after the tool call's
 * interval on a tool turn, then one interval) and its last.
 */
export function modelTime(
  timing: ModelTiming,
  toolTurn: boolean,
): { readonly firstTokenMs: number; readonly totalMs: number } {
  const toolMs = toolTurn ? timing.intervalMs : 0;
  return {
    firstTokenMs: toolMs + timing.intervalMs,
    totalMs: toolMs + timing.tokens * timing.intervalMs,
  };
}
