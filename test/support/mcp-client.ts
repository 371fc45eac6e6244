import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface McpConnection {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
}

/** The official MCP client on a runtime's `/mcp`, with these headers on every request. */
export async function connectMcp(
  runtimeUrl: string,
  headers: Readonly<Record<string, string>>,
): Promise<McpConnection> {
  const transport = new StreamableHTTPClientTransport(new URL(`${runtimeUrl}/mcp`), {
    requestInit: { headers: { ...headers } },
  });
  const client = new Client({ name: 'berth-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}
