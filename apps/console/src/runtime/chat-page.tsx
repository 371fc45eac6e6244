import type { BaseMessage } from '@langchain/core/messages';
import { useChannel, useStream } from '@langchain/react';
import { useQuery } from '@tanstack/react-query';
import { GraphView } from '../components/graph-view';
import { QueryView } from '../components/states';
import { runningNodes } from '../domain/graph-layout';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { shortJson } from '../domain/diff';
import { checkAnswer, parsedAnswer, interruptIn } from '../domain/interrupt-answer';
import { useRuntime } from './runtime-context';
import { sendOnEnter } from './send-on-enter';

interface ToolCall {
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}

function textOf(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : message.text;
}

function toolCallsOf(message: BaseMessage): readonly ToolCall[] {
  const calls = (message as { tool_calls?: unknown }).tool_calls;
  return Array.isArray(calls) ? (calls as ToolCall[]) : [];
}

function toolCallIdOf(message: BaseMessage): string | undefined {
  const id = (message as { tool_call_id?: unknown }).tool_call_id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * What the box sends: a JSON object as the graph's input as it is (for a graph without messages,
 * say `{"steps": 20}`), anything else as a human message.
 */
function inputOf(draft: string): Record<string, unknown> {
  const parsed = draft.trim().startsWith('{') ? parsedAnswer(draft) : undefined;
  if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
    return parsed as Record<string, unknown>;
  }
  return { messages: [{ type: 'human', content: draft }] };
}

const SPEAKERS: Readonly<Record<string, string>> = {
  human: 'You',
  ai: 'Assistant',
  tool: 'Tool',
  system: 'System',
};

/** A chat's thread and the way to start a run on it, for the messages' own actions. */
interface ChatThread {
  readonly threadId: string | null;
  submit(input: Record<string, unknown>, options: { forkFrom: string }): Promise<void>;
}

/**
 * The checkpoint before a message came: the parent of the oldest checkpoint whose messages hold
 * it, read from the thread's history (newest first).
 */
async function checkpointBefore(
  client: ReturnType<typeof useRuntime>['client'],
  threadId: string,
  messageId: string,
): Promise<string | undefined> {
  const history = await client.threads.getHistory<{ messages?: { id?: string }[] }>(threadId, {
    limit: 1000,
  });
  const holding = history.filter((state) =>
    (state.values.messages ?? []).some((message) => message.id === messageId),
  );
  return holding.at(-1)?.parent_checkpoint?.checkpoint_id ?? undefined;
}

/**
 * A human message can be edited and sent again: the run starts from the checkpoint before it
 * (`forkFrom`), a new branch of the thread's history; the old branch stays in it.
 */
function EditAndFork({
  chat,
  message,
}: {
  readonly chat: ChatThread;
  readonly message: BaseMessage;
}) {
  const { client } = useRuntime();
  const [editing, setEditing] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const { threadId } = chat;
  if (threadId === null || message.id === undefined) return null;
  const messageId = message.id;
  if (editing === null) {
    return (
      <button type="button" className="link" onClick={() => setEditing(textOf(message))}>
        Edit
      </button>
    );
  }
  const send = async (): Promise<void> => {
    const parent = await checkpointBefore(client, threadId, messageId);
    if (parent === undefined) {
      setFailure("The checkpoint before this message is not in the thread's history.");
      return;
    }
    setEditing(null);
    await chat.submit({ messages: [{ type: 'human', content: editing }] }, { forkFrom: parent });
  };
  return (
    <form
      className="chat-edit"
      onSubmit={(event) => {
        event.preventDefault();
        send().catch((error: unknown) => setFailure(String(error)));
      }}
    >
      <textarea
        aria-label="Edited message"
        value={editing}
        onChange={(event) => setEditing(event.target.value)}
        onKeyDown={sendOnEnter}
      />
      <button type="submit">Send as a new branch</button>
      <button type="button" onClick={() => setEditing(null)}>
        Cancel
      </button>
      {failure ? <p role="alert">{failure}</p> : null}
    </form>
  );
}

function ChatMessage({
  message,
  chat,
}: {
  readonly message: BaseMessage;
  readonly chat: ChatThread;
}) {
  const type = message.type;
  const calls = toolCallsOf(message);
  const text = textOf(message);
  const callId = toolCallIdOf(message);
  return (
    <li className={`chat-message chat-${type}`} data-type={type}>
      <span className="chat-speaker">
        {SPEAKERS[type] ?? type}
        {type === 'tool' && message.name ? ` ${message.name}` : ''}
      </span>
      {text ? <p className="chat-text">{text}</p> : null}
      {calls.map((call, index) => (
        <p key={call.id ?? index} className="chat-tool-call" data-tool-call-id={call.id}>
          calls <code>{call.name}</code> with <code>{shortJson(call.args)}</code>
        </p>
      ))}
      {callId ? <p className="chat-tool-result">result of call {callId}</p> : null}
      {type === 'human' ? <EditAndFork chat={chat} message={message} /> : null}
    </li>
  );
}

/**
 * The open interrupt and a box to answer it. An empty answer goes only where the interrupt's
 * `response_schema` (read from the thread's state) allows one.
 */
function InterruptAnswer({
  interrupt,
  threadId,
  respond,
}: {
  readonly interrupt: { readonly id?: string; readonly value?: unknown };
  readonly threadId: string | null;
  readonly respond: (value: unknown) => void;
}) {
  const { client, key } = useRuntime();
  const [answer, setAnswer] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const schema = useQuery({
    queryKey: ['runtime', key, 'thread', threadId, 'interrupt', interrupt.id, 'schema'],
    queryFn: async () => {
      const found = interruptIn(
        (await client.threads.getState(threadId ?? '')).tasks,
        interrupt.id,
      );
      // The stream can tell of the interrupt a moment before the thread's state holds it.
      if (found === undefined) throw new Error("The interrupt is not in the thread's state yet");
      return found.response_schema ?? null;
    },
    retry: 10,
    retryDelay: 500,
    enabled: threadId !== null,
  });
  const emptyAllowed = checkAnswer('', schema.data).ok;
  return (
    <form
      className="chat-interrupt"
      aria-label="Interrupt"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const checked = checkAnswer(answer, schema.data);
        if (!checked.ok) {
          setProblem(checked.problem);
          return;
        }
        setProblem(null);
        respond(checked.value);
        setAnswer('');
      }}
    >
      <p>
        The graph asks: <code>{shortJson(interrupt.value)}</code>
      </p>
      <input
        aria-label="Answer (JSON, or text)"
        aria-invalid={problem !== null}
        aria-describedby={problem !== null ? 'chat-interrupt-problem' : undefined}
        placeholder={emptyAllowed ? 'May be left empty' : undefined}
        value={answer}
        onChange={(event) => {
          setAnswer(event.target.value);
          setProblem(null);
        }}
      />
      <button type="submit">Answer</button>
      {problem !== null ? (
        <p className="field-problem" id="chat-interrupt-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}

/**
 * A thread as a chat, on the official `@langchain/react` `useStream` over the runtime's thread
 * streams (through the control plane for a deployment): its messages, the assistant's tokens as
 * they stream, tool calls with their arguments and results, an open interrupt to answer, and a
 * box to send the next message. A new chat's thread goes into the address once it exists.
 */
export function ChatPage({
  assistantId,
  threadId,
}: {
  readonly assistantId: string;
  readonly threadId: string | null;
}) {
  const { client, connection, key } = useRuntime();
  const graph = useQuery({
    queryKey: ['runtime', key, 'assistant', assistantId, 'graph'],
    queryFn: () => client.assistants.getGraph(assistantId),
  });
  const assistant = useQuery({
    queryKey: ['runtime', key, 'assistant', assistantId],
    queryFn: () => client.assistants.get(assistantId),
  });
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState('');
  // The thread it opened on: the one it makes itself goes into the address (for a reload), not
  // back into useStream, which would start over on it and drop the run being sent.
  const [openedOn] = useState(threadId);
  const stream = useStream<{ messages?: unknown[] }>({
    assistantId,
    apiUrl: connection.apiUrl,
    apiKey: connection.apiKey,
    threadId: openedOn,
    onThreadId: (created) => navigate(`/chat/${assistantId}/${created}`, { replace: true }),
  });
  const tasks = useChannel(stream, ['tasks']);
  const running = runningNodes(
    tasks.map((event) => (event.params.data ?? {}) as { id?: unknown; name?: unknown }),
  );
  const error = stream.error instanceof Error ? stream.error.message : undefined;
  const { interrupt } = stream;
  return (
    <section className="chat" aria-labelledby="chat-title">
      <div className="page-head">
        <h2 id="chat-title">{assistant.data ? `Chat with ${assistant.data.name}` : 'Chat'}</h2>
        {assistant.data ? (
          <span className="chat-graph" data-testid="chat-graph">
            graph <code>{assistant.data.graph_id}</code>
          </span>
        ) : null}
        <span className="badge" data-testid="chat-status">
          {stream.isLoading ? 'running' : 'idle'}
        </span>
        {stream.threadId ? (
          <Link href={`/threads/${stream.threadId}`}>the thread, its state and runs</Link>
        ) : null}
      </div>
      <div className="chat-columns">
        <ol className="chat-messages" aria-label="Messages">
          {stream.messages.map((message, index) => (
            <ChatMessage key={message.id ?? index} message={message} chat={stream} />
          ))}
        </ol>
        <QueryView query={graph} what="the graph">
          {(shape) => <GraphView graph={shape} running={stream.isLoading ? running : new Set()} />}
        </QueryView>
      </div>
      {interrupt ? (
        <InterruptAnswer
          key={interrupt.id ?? 'interrupt'}
          interrupt={interrupt}
          threadId={stream.threadId}
          respond={(value) => void stream.respond(value)}
        />
      ) : null}
      {error ? <p role="alert">{error}</p> : null}
      <form
        className="chat-compose"
        onSubmit={(event) => {
          event.preventDefault();
          if (!draft.trim() || stream.isLoading) return;
          void stream.submit(inputOf(draft));
          setDraft('');
        }}
      >
        <textarea
          aria-label="Message"
          aria-describedby="chat-compose-keys"
          placeholder="A message, or the graph's input as a JSON object"
          value={draft}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={sendOnEnter}
        />
        <button type="submit" disabled={stream.isLoading}>
          Send
        </button>
        <p className="hint" id="chat-compose-keys">
          Enter sends; Shift+Enter starts a new line.
        </p>
      </form>
    </section>
  );
}
