import { A2A_PROTOCOL_VERSION, type AgentCard } from '@a2a-js/sdk';
import { A2A_LEGACY_PROTOCOL_VERSION } from '@a2a-js/sdk/compat/v0_3';

/** What an agent card tells of an assistant and its graph. */
export interface CardSubject {
  readonly graphId: string;
  readonly name: string;
  readonly description: string | null;
  readonly version: number;
  /** The names of the graph's input fields, when its schema is known. */
  readonly inputFields?: readonly string[];
}

const MODES = ['text/plain', 'application/json'];

/** The A2A 1.0 agent card of an assistant, served by JSON-RPC at `endpoint` in 1.0 and 0.3. */
export function agentCardOf(subject: CardSubject, endpoint: string): AgentCard {
  const inputs = subject.inputFields?.length
    ? ` Input fields: ${subject.inputFields.join(', ')}.`
    : '';
  const jsonRpc = (protocolVersion: string) => ({
    url: endpoint,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion,
  });
  return {
    name: subject.name,
    description: subject.description || `The ${subject.graphId} graph, served by Berth.`,
    supportedInterfaces: [jsonRpc(A2A_PROTOCOL_VERSION), jsonRpc(A2A_LEGACY_PROTOCOL_VERSION)],
    provider: undefined,
    version: String(subject.version),
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: subject.graphId,
        name: subject.name,
        description:
          `Sends the message to the ${subject.graphId} graph as a user message ` +
          `(data parts as input values) and answers with its last AI message.${inputs}`,
        tags: ['langgraph', subject.graphId],
        examples: [],
        inputModes: MODES,
        outputModes: MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * The same card in the shape 0.3 clients read (`url`, `protocolVersion`, `preferredTransport`),
 * the 1.0 interfaces kept beside, as the SDK's compat layer serves it.
 */
export function legacyAgentCardOf(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.find(
    (entry) => entry.protocolVersion === A2A_LEGACY_PROTOCOL_VERSION,
  );
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    url: legacy?.url,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    capabilities: { streaming: card.capabilities?.streaming, pushNotifications: false },
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(
      ({ id, name, description, tags, examples, inputModes, outputModes }) => ({
        id,
        name,
        description,
        tags,
        examples,
        inputModes,
        outputModes,
      }),
    ),
    supportedInterfaces: card.supportedInterfaces,
  };
}
