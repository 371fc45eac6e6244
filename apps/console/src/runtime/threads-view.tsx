import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import type { ThreadStatus } from '@langchain/langgraph-sdk';
import { StatusBadge } from '../components/status-badge';
import { Empty, QueryView } from '../components/states';
import { useRuntime } from './runtime-context';
import { Pager } from '../components/pager';

const PAGE_SIZE = 20;
const STATUSES: readonly ThreadStatus[] = ['idle', 'busy', 'interrupted', 'error'];

export function ThreadsView() {
  const { client, key } = useRuntime();
  const [status, setStatus] = useState<ThreadStatus | ''>('');
  const [id, setId] = useState('');
  const [offset, setOffset] = useState(0);
  const threads = useQuery({
    queryKey: ['runtime', key, 'threads', status, id, offset],
    queryFn: ({ signal }) =>
      client.threads.search({
        limit: PAGE_SIZE,
        offset,
        sortBy: 'updated_at',
        sortOrder: 'desc',
        ...(status ? { status } : {}),
        ...(id.trim() ? { ids: [id.trim()] } : {}),
        signal,
      }),
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
  return (
    <>
      <form className="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Thread id
          <input
            type="search"
            value={id}
            onChange={(event) => {
              setId(event.target.value);
              setOffset(0);
            }}
          />
        </label>
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as ThreadStatus | '');
              setOffset(0);
            }}
          >
            <option value="">any</option>
            {STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
      </form>
      <QueryView query={threads} what="threads">
        {(list) =>
          list.length === 0 ? (
            <Empty>No thread matches.</Empty>
          ) : (
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Thread</th>
                    <th scope="col">Status</th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((thread) => (
                    <tr key={thread.thread_id}>
                      <th scope="row">
                        <Link href={`/threads/${thread.thread_id}`}>
                          <code>{thread.thread_id}</code>
                        </Link>
                      </th>
                      <td>
                        <StatusBadge status={thread.status} />
                      </td>
                      <td>{new Date(thread.updated_at).toLocaleString()}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </QueryView>
      <Pager
        offset={offset}
        pageSize={PAGE_SIZE}
        shown={threads.data?.length ?? 0}
        onOffset={setOffset}
      />
    </>
  );
}
