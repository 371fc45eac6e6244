import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { Empty, QueryView } from '../components/states';
import { useRuntime } from './runtime-context';

export function AssistantsView() {
  const { client, key } = useRuntime();
  const assistants = useQuery({
    queryKey: ['runtime', key, 'assistants'],
    queryFn: ({ signal }) =>
      client.assistants.search({ limit: 100, sortBy: 'updated_at', sortOrder: 'desc', signal }),
  });
  return (
    <QueryView query={assistants} what="assistants">
      {(list) =>
        list.length === 0 ? (
          <Empty>This runtime has no assistants.</Empty>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Graph</th>
                  <th scope="col">Version</th>
                  <th scope="col">Updated</th>
                  <th scope="col">
                    <span className="visually-hidden">Chat</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((assistant) => (
                  <tr key={assistant.assistant_id}>
                    <th scope="row">
                      <Link href={`/assistants/${assistant.assistant_id}`}>{assistant.name}</Link>
                    </th>
                    <td>{assistant.graph_id}</td>
                    <td>{assistant.version}</td>
                    <td>{new Date(assistant.updated_at).toLocaleString()}</td>
                    <td>
                      <Link
                        href={`/chat/${assistant.assistant_id}`}
                        aria-label={`Chat with ${assistant.name}`}
                      >
                        Chat
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </QueryView>
  );
}
