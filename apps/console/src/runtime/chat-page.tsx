import type { BaseMessage } from '@langchain/core/messages';
import { useChannel, useStream } from '@langchain/react';
import { useQuery } from '@tanstack/react-query';
import { GraphView } from '../components/graph-view';
import { QueryView } from '../components/states';
import { runningNodes } from '../domain/graph-layout';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { shortJson } from '../domain/diff';
import { useRuntime } from './runtime-context';

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

/** An answer as JSON when it is JSON (`true`, `{"approved": false}`), else as the text typed. */
function parsedAnswer(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
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

function ChatMessage({ message }: { readonly message: BaseMessage }) {
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
    </li>
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
  const [, navigate] = useLocation();
  const [draft, setDraft] = useState('');
  const [answer, setAnswer] = useState('');
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
        <h2 id="chat-title">Chat</h2>
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
            <ChatMessage key={message.id ?? index} message={message} />
          ))}
        </ol>
        <QueryView query={graph} what="the graph">
          {(shape) => <GraphView graph={shape} running={stream.isLoading ? running : new Set()} />}
        </QueryView>
      </div>
      {interrupt ? (
        <form
          className="chat-interrupt"
          aria-label="Interrupt"
          onSubmit={(event) => {
            event.preventDefault();
            void stream.respond(parsedAnswer(answer));
            setAnswer('');
          }}
        >
          <p>
            The graph asks: <code>{shortJson(interrupt.value)}</code>
          </p>
          <input
            aria-label="Answer (JSON, or text)"
            value={answer}
            onChange={(event) => setAnswer(event.target.value)}
          />
          <button type="submit">Answer</button>
        </form>
      ) : null}
      {error ? <p role="alert">{error}</p> : null}
      <form
        className="chat-compose"
        onSubmit={(event) => {
          event.preventDefault();
          if (!draft.trim()) return;
          void stream.submit(inputOf(draft));
          setDraft('');
        }}
      >
        <textarea
          aria-label="Message"
          placeholder="A message, or the graph's input as a JSON object"
          value={draft}
          rows={2}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" disabled={stream.isLoading}>
          Send
        </button>
      </form>
    </section>
  );
}
