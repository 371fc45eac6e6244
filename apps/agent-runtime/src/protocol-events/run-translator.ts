import type { JsonObject, JsonValue, RecordedEvent } from '#libs/event-store';
import { isJsonObject as isRecord } from '../common/json-object.js';
import { MessageEvents } from './message-events.js';
import type { ProtocolEventBody } from './protocol-event.js';

const INTERRUPT_KEY = '__interrupt__';
/** LangGraph's interrupt ids: a resume keyed by them answers those interrupts. */
const INTERRUPT_ID = /^[0-9a-f]{32}$/;
const ROOT: readonly string[] = [];

type Body = Omit<ProtocolEventBody, 'timestamp'>;

function namespaceKey(namespace: readonly string[]): string {
  return namespace.join('|');
}

/** `updates|child:1|grandchild:2` → the mode and the namespace. */
function parseEventName(name: string): { mode: string; namespace: string[] } {
  const [mode = '', ...namespace] = name.split('|');
  return { mode, namespace };
}

function graphNameOf(segment: string): string {
  return segment.split(':')[0] ?? segment;
}

function interruptsIn(value: JsonValue | undefined): { id: string; value: JsonValue }[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(isRecord)
    .flatMap((interrupt) =>
      typeof interrupt.id === 'string'
        ? [{ id: interrupt.id, value: interrupt.value ?? null }]
        : [],
    );
}

function text(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The interrupts a run's `command.resume` answers by id. */
function answeredBy(command: JsonValue | undefined): string[] {
  const resume = isRecord(command) ? command.resume : undefined;
  if (!isRecord(resume)) return [];
  const ids = Object.keys(resume);
  return ids.length > 0 && ids.every((id) => INTERRUPT_ID.test(id)) ? ids : [];
}

function toolsData(payload: JsonValue): JsonObject {
  const data = isRecord(payload) ? payload : {};
  const toolCallId = text(data.toolCallId ?? data.tool_call_id);
  const kind = typeof data.event === 'string' ? data.event : '';
  if (kind === 'on_tool_start') {
    return {
      event: 'tool-started',
      tool_call_id: toolCallId,
      tool_name: text(data.name) || 'unknown',
      input: data.input ?? null,
    };
  }
  if (kind === 'on_tool_event') {
    return { event: 'tool-output-delta', tool_call_id: toolCallId, delta: text(data.data) };
  }
  if (kind === 'on_tool_end') {
    return { event: 'tool-finished', tool_call_id: toolCallId, output: data.output ?? null };
  }
  const error = data.error;
  const message = isRecord(error) ? text(error.message) : text(error);
  return { event: 'tool-error', tool_call_id: toolCallId, message: message || 'tool failed' };
}

/**
 * Turns one run's events in the log into thread-streaming-v2 events. Deterministic: the same
 * events, read again from the run's start, give the same protocol events, which is what lets a
 * client resume from any `seq`. Channels: lifecycle (the root and each subgraph), messages as
 * content blocks, values and updates (interrupts taken out as `input.requested`), tools, custom
 * and tasks. (Checkpoints come from the thread's checkpoint stream, not from the run's.)
 */
export class RunTranslator {
  private graphName = 'root';
  private readonly messages = new MessageEvents();
  private readonly namespaces = new Map<string, readonly string[]>();
  private readonly requested = new Set<string>();
  private status: string | undefined;
  private answered: string[] = [];

  constructor(readonly runId: string) {}

  /** The namespaces the run has shown so far, with where each one stands. */
  tree(): { namespace: readonly string[]; status: string; graph_name: string }[] {
    const root = { namespace: ROOT, status: this.status ?? 'started', graph_name: this.graphName };
    const children = [...this.namespaces.values()].map((namespace) => ({
      namespace,
      status: this.status === 'running' || this.status === undefined ? 'running' : this.status,
      graph_name: graphNameOf(namespace[namespace.length - 1] ?? ''),
    }));
    return [root, ...children];
  }

  translate(event: RecordedEvent): Body[] {
    const data = event.data;
    switch (event.type) {
      case 'RunCreated':
        if (typeof data.graph_id === 'string') this.graphName = data.graph_id;
        this.answered = answeredBy(data.command);
        return [];
      case 'RunStarted': {
        this.status = 'running';
        const started = [this.lifecycle(ROOT, 'running')];
        if (this.answered.length === 0) return started;
        // Every client on the thread may stop offering them (the protocol's `input.answered`).
        const answered = { interrupt_ids: this.answered };
        return [...started, { method: 'input.answered', namespace: ROOT, data: answered }];
      }
      case 'RunStepEmitted':
        return typeof data.event === 'string'
          ? this.translateChunk(data.event, data.data ?? null)
          : [];
      case 'RunFinished':
        return this.finished(data);
      default:
        return [];
    }
  }

  /** The protocol events of one stream chunk (`updates|child:1`, its payload). */
  translateChunk(name: string, payload: JsonValue): Body[] {
    const { mode, namespace } = parseEventName(name);
    const out = this.discover(namespace);
    switch (mode) {
      case 'values':
        return [...out, ...this.values(namespace, payload)];
      case 'updates':
        return [...out, ...this.updates(namespace, payload)];
      case 'messages': {
        if (!Array.isArray(payload) || !isRecord(payload[0])) return out;
        const metadata = isRecord(payload[1]) ? payload[1] : {};
        const node =
          typeof metadata.langgraph_node === 'string' ? metadata.langgraph_node : undefined;
        const events = this.messages.translate(payload[0], { namespace, node });
        return [...out, ...events.map((one) => this.messageBody(one.data, one.where))];
      }
      case 'custom': {
        const data =
          isRecord(payload) && typeof payload.name === 'string' && 'payload' in payload
            ? payload
            : { payload };
        return [...out, { method: 'custom', namespace, data }];
      }
      case 'tasks':
        return [...out, { method: 'tasks', namespace, data: payload }];
      case 'tools':
        return [...out, { method: 'tools', namespace, data: toolsData(payload) }];
      default:
        return out;
    }
  }

  private values(namespace: readonly string[], payload: JsonValue): Body[] {
    if (!isRecord(payload)) return [{ method: 'values', namespace, data: payload }];
    const { [INTERRUPT_KEY]: interrupts, ...values } = payload;
    const out = this.inputRequested(namespace, interruptsIn(interrupts));
    if (Object.keys(values).length > 0 || interrupts === undefined) {
      out.push({ method: 'values', namespace, data: values });
    }
    return out;
  }

  private updates(namespace: readonly string[], payload: JsonValue): Body[] {
    if (!isRecord(payload)) return [];
    return Object.entries(payload).flatMap(([node, values]): Body[] => {
      if (node === INTERRUPT_KEY) return this.inputRequested(namespace, interruptsIn(values));
      const data = { node, values: isRecord(values) ? values : { value: values } };
      const done = this.messages
        .finishNode({ namespace, node })
        .map((one) => this.messageBody(one.data, one.where));
      return [...done, { method: 'updates', namespace, node, data }];
    });
  }

  private inputRequested(
    namespace: readonly string[],
    interrupts: readonly { id: string; value: JsonValue }[],
  ): Body[] {
    const out: Body[] = [];
    for (const interrupt of interrupts) {
      if (this.requested.has(interrupt.id)) continue;
      this.requested.add(interrupt.id);
      out.push({
        method: 'input.requested',
        namespace,
        data: { interrupt_id: interrupt.id, payload: interrupt.value },
      });
    }
    return out;
  }

  private finished(data: JsonObject): Body[] {
    const out = this.messages.finishAll().map((one) => this.messageBody(one.data, one.where));
    const open = isRecord(data.interrupts)
      ? Object.values(data.interrupts).flatMap((list) => interruptsIn(list))
      : [];
    out.push(...this.inputRequested(ROOT, open));
    const failed = data.status === 'error' || data.status === 'timeout';
    const status = failed
      ? 'failed'
      : data.status === 'interrupted' || this.requested.size > 0 || open.length > 0
        ? 'interrupted'
        : 'completed';
    this.status = status;
    const deepestFirst = [...this.namespaces.values()].sort((a, b) => b.length - a.length);
    for (const namespace of deepestFirst)
      out.push(this.lifecycle(namespace, status === 'failed' ? 'failed' : 'completed'));
    const error =
      failed && isRecord(data.error) ? text(data.error.message ?? data.error.error) : undefined;
    out.push(this.lifecycle(ROOT, status, error));
    return out;
  }

  /** A `started` lifecycle event for each part of a namespace not seen before. */
  private discover(namespace: readonly string[]): Body[] {
    const out: Body[] = [];
    for (let depth = 1; depth <= namespace.length; depth += 1) {
      const part = namespace.slice(0, depth);
      const key = namespaceKey(part);
      if (this.namespaces.has(key)) continue;
      this.namespaces.set(key, part);
      out.push(this.lifecycle(part, 'started'));
    }
    return out;
  }

  private lifecycle(namespace: readonly string[], event: string, error?: string): Body {
    const graphName =
      namespace.length === 0 ? this.graphName : graphNameOf(namespace[namespace.length - 1] ?? '');
    return {
      method: 'lifecycle',
      namespace,
      data: { event, graph_name: graphName, ...(error ? { error } : {}) },
    };
  }

  private messageBody(
    data: JsonObject,
    where: { namespace: readonly string[]; node?: string },
  ): Body {
    return {
      method: 'messages',
      namespace: where.namespace,
      ...(where.node ? { node: where.node } : {}),
      data,
    };
  }
}
