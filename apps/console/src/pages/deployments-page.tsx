import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { dataOf } from '../api/control-plane';
import type { components } from '../api/control-plane.schema';
import { StatusBadge } from '../components/status-badge';
import { Empty, QueryView } from '../components/states';
import { useSession } from '../session';
import { shortId } from '../domain/short-id';
import { Pager } from '../components/pager';
import { WrappingUrl } from '../components/wrapping-url';

const PAGE_SIZE = 20;
type Query = NonNullable<components['schemas']['ListDeploymentsQueryDto']>;
const STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const;
const TYPES = ['dev_free', 'dev', 'prod'] as const;

export function DeploymentsPage() {
  const { api } = useSession();
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [type, setType] = useState('');
  const [offset, setOffset] = useState(0);
  const query: Query = {
    limit: PAGE_SIZE,
    offset,
    ...(search ? { name_contains: search } : {}),
    ...(status ? { status: status as Query['status'] } : {}),
    ...(type ? { deployment_type: type as Query['deployment_type'] } : {}),
  };
  const deployments = useQuery({
    queryKey: ['deployments', query],
    queryFn: async ({ signal }) =>
      dataOf(await api.GET('/v2/deployments', { params: { query }, signal })),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
  const filtered = (reset: () => void) => {
    reset();
    setOffset(0);
  };
  return (
    <main>
      <h1>Deployments</h1>
      <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Name contains
          <input
            type="search"
            value={search}
            onChange={(event) => filtered(() => setSearch(event.target.value))}
          />
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => filtered(() => setStatus(event.target.value))}
          >
            <option value="">any</option>
            {STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select value={type} onChange={(event) => filtered(() => setType(event.target.value))}>
            <option value="">any</option>
            {TYPES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
      </form>
      <QueryView query={deployments} what="deployments">
        {(page) =>
          page.resources.length === 0 ? (
            <Empty>
              {offset > 0 || search || status || type
                ? 'No deployment matches.'
                : 'No deployments yet. Deploy one with `npx berth deploy path/to/app`.'}
            </Empty>
          ) : (
            <div className="table-wrap">
              <table className="deployments">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Type</th>
                    <th scope="col">Status</th>
                    <th scope="col">Active revision</th>
                    <th scope="col">URL</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {page.resources.map((deployment) => {
                    const url = deployment.source_config.custom_url;
                    const kind = deployment.source_config.deployment_type;
                    return (
                      <tr key={deployment.id}>
                        <th scope="row" data-label="Name">
                          <Link href={`/deployments/${deployment.id}`}>{deployment.name}</Link>
                        </th>
                        <td data-label="Type">
                          {typeof kind === 'string' ? kind : deployment.source}
                        </td>
                        <td data-label="Status">
                          <StatusBadge status={deployment.status} />
                        </td>
                        <td data-label="Active revision">
                          <code>
                            {deployment.active_revision_id
                              ? shortId(deployment.active_revision_id)
                              : '—'}
                          </code>
                        </td>
                        <td data-label="URL">
                          {typeof url === 'string' ? <WrappingUrl url={url} /> : '—'}
                        </td>
                        <td data-label="Updated">
                          <time dateTime={deployment.updated_at}>
                            {new Date(deployment.updated_at).toLocaleString()}
                          </time>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <Pager
        offset={offset}
        pageSize={PAGE_SIZE}
        shown={deployments.data?.resources.length ?? 0}
        onOffset={setOffset}
      />
    </main>
  );
}
