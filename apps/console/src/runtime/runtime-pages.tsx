import { Link, Route, Switch, useRoute } from 'wouter';
import type { RuntimeTarget } from '../api/runtime';
import { AssistantPage } from './assistant-page';
import { AssistantsView } from './assistants-view';
import { ChatPage } from './chat-page';
import { RunPage } from './run-page';
import { RuntimeProvider } from './runtime-context';
import { ThreadPage } from './thread-page';
import { ThreadsView } from './threads-view';

/** The tab of the page shown: a chat is with an assistant, so it is under Assistants. */
function Tabs() {
  const [assistantPage] = useRoute('/assistants/*?');
  const [chat] = useRoute('/chat/*?');
  const assistants = assistantPage || chat;
  return (
    <nav className="tabs" aria-label="Runtime">
      <Link href="/assistants" aria-current={assistants ? 'page' : undefined}>
        Assistants
      </Link>
      <Link href="/threads" aria-current={assistants ? undefined : 'page'}>
        Threads and runs
      </Link>
    </nav>
  );
}

/** The runtime's pages, nested under the route that chose the target. */
export function RuntimePages({
  target,
  title,
}: {
  readonly target: RuntimeTarget;
  readonly title: string;
}) {
  return (
    <RuntimeProvider target={target}>
      <main>
        {target.kind === 'deployment' ? (
          <p>
            <Link href={`~/deployments/${target.deploymentId}`}>← the deployment</Link>
          </p>
        ) : null}
        <h1>{title}</h1>
        <Tabs />
        <Switch>
          <Route path="/chat/:assistantId/:threadId?">
            {(params) => (
              <ChatPage
                key={params.assistantId}
                assistantId={params.assistantId}
                threadId={params.threadId ?? null}
              />
            )}
          </Route>
          <Route path="/assistants/:assistantId">
            {(params) => <AssistantPage assistantId={params.assistantId} />}
          </Route>
          <Route path="/assistants">
            <AssistantsView />
          </Route>
          <Route path="/threads/:threadId/runs/:runId">
            {(params) => <RunPage threadId={params.threadId} runId={params.runId} />}
          </Route>
          <Route path="/threads/:threadId">
            {(params) => <ThreadPage threadId={params.threadId} />}
          </Route>
          <Route>
            <ThreadsView />
          </Route>
        </Switch>
      </main>
    </RuntimeProvider>
  );
}
