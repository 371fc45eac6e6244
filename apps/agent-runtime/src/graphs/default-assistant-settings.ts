import type { JsonObject } from '#libs/domain';
import type { DefaultAssistantSettings } from '../common/runtime-tokens.js';

const NONE: DefaultAssistantSettings = { config: {}, context: {} };

/** `LANGGRAPH_CONFIG` cannot be used: the message says why. */
export class DefaultAssistantSettingsError extends Error {
  override readonly name = 'DefaultAssistantSettingsError';
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The default assistants' settings that `LANGGRAPH_CONFIG` gives (usually set in the graph
 * configuration's `env`): a JSON object keyed by graph id, each value an assistant config whose
 * `context` key, when present, is the assistant's context. A graph it does not name gets empty
 * ones, as does every graph when it is unset or empty.
 */
export function defaultAssistantSettings(
  text: string | undefined,
): (graphId: string) => DefaultAssistantSettings {
  if (text === undefined || text.trim() === '') return () => NONE;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new DefaultAssistantSettingsError(
      `LANGGRAPH_CONFIG is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isObject(parsed)) {
    throw new DefaultAssistantSettingsError(
      'LANGGRAPH_CONFIG must be a JSON object keyed by graph id',
    );
  }
  const settings = new Map<string, DefaultAssistantSettings>();
  for (const [graphId, value] of Object.entries(parsed)) {
    if (!isObject(value)) {
      throw new DefaultAssistantSettingsError(
        `LANGGRAPH_CONFIG.${graphId} must be an object (the default assistant's config)`,
      );
    }
    const { context, ...config } = value;
    if (context !== undefined && context !== null && !isObject(context)) {
      throw new DefaultAssistantSettingsError(
        `LANGGRAPH_CONFIG.${graphId}.context must be an object`,
      );
    }
    settings.set(graphId, { config, context: context ?? {} });
  }
  return (graphId) => settings.get(graphId) ?? NONE;
}
