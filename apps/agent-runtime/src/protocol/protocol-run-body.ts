import type { JsonObject } from '#libs/event-store';
import { isJsonObject } from '../common/json-object.js';
import type { MultitaskStrategy } from '../run-records/run.events.js';
import type { CreateRunDto } from '../runs/create-run/create-run.dto.js';
import { objectParam } from './protocol-params.js';

/** Every run a v2 client starts streams all that the protocol's channels carry. */
const V2_STREAM_MODES: CreateRunDto['stream_mode'] = [
  'values',
  'updates',
  'messages-tuple',
  'tools',
  'custom',
  'tasks',
];
const STRATEGIES: readonly MultitaskStrategy[] = ['reject', 'rollback', 'interrupt', 'enqueue'];

/** The body of the run a protocol command starts, from the command's parameters. */
export function protocolRunBody(
  params: JsonObject,
  body: Partial<CreateRunDto> & { assistant_id: string },
): CreateRunDto {
  const strategy = params.multitaskStrategy ?? params.multitask_strategy;
  const config = objectParam(params, 'config');
  const metadata = objectParam(params, 'metadata');
  // The SDK's `forkFrom` arrives as the config's checkpoint id.
  const configurable = isJsonObject(config?.configurable) ? config.configurable : {};
  const forkFrom = configurable.checkpoint_id;
  return {
    ...(typeof forkFrom === 'string' && forkFrom !== '' ? { checkpoint_id: forkFrom } : {}),
    ...body,
    ...(config ? { config } : {}),
    ...(metadata ? { metadata } : {}),
    stream_mode: V2_STREAM_MODES,
    stream_subgraphs: true,
    if_not_exists: 'create',
    multitask_strategy: STRATEGIES.includes(strategy as MultitaskStrategy)
      ? (strategy as MultitaskStrategy)
      : 'enqueue',
  };
}
