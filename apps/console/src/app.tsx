import { Link, Route, Router, Switch, useRoute } from 'wouter';
import { useHashLocation } from 'wouter/use-hash-location';
import { DeploymentPage } from './pages/deployment-page';
import { DeploymentsPage } from './pages/deployments-page';
import { DirectRuntimePage } from './pages/direct-runtime-page';
import { RevisionChangesPage } from './pages/revision-changes-page';
import { SignInPage } from './pages/sign-in-page';
import { RuntimePages } from './runtime/runtime-pages';
import { useSessionState } from './session';

function Shell() {
  const { session } = useSessionState();
  const [byUrl] = useRoute('/runtime/*?');
  if (!session) return <SignInPage />;
  return (
    <>
      <header className="top">
        <Link href="/" className="brand">
          Berth
        </Link>
        <nav aria-label="Main">
          <Link href="/" aria-current={byUrl ? undefined : 'page'}>
            Deployments
          </Link>
          <Link href="/runtime" aria-current={byUrl ? 'page' : undefined}>
            Open a runtime by URL
          </Link>
        </nav>
        <button type="button" onClick={session.signOut}>
          Sign out
        </button>
      </header>
      <div className="content">
        <Switch>
          <Route path="/deployments/:deploymentId/runtime" nest>
            {(params) => (
              <RuntimePages
                target={{ kind: 'deployment', deploymentId: params.deploymentId }}
                title="Deployment runtime"
              />
            )}
          </Route>
          <Route path="/deployments/:deploymentId/revisions/:revisionId/changes">
            {(params) => (
              <RevisionChangesPage
                deploymentId={params.deploymentId}
                revisionId={params.revisionId}
              />
            )}
          </Route>
          <Route path="/deployments/:deploymentId">
            {(params) => <DeploymentPage deploymentId={params.deploymentId} />}
          </Route>
          <Route path="/runtime" nest>
            <DirectRuntimePage />
          </Route>
          <Route>
            <DeploymentsPage />
          </Route>
        </Switch>
      </div>
    </>
  );
}

/** Routes live in the hash, so the control plane serves one page for all of them. */
export function App() {
  return (
    <Router hook={useHashLocation}>
      <Shell />
    </Router>
  );
}
