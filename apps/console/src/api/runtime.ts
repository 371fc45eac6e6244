import { Client } from '@langchain/langgraph-sdk';

/** Which runtime the runtime pages talk to. */
export type RuntimeTarget =
  | { readonly kind: 'deployment'; readonly deploymentId: string }
  | { readonly kind: 'direct'; readonly url: string; readonly apiKey: string };

/** The path under which the control plane passes requests on to a deployment's runtime. */
export const runtimeGatewayPath = (deploymentId: string): string =>
  `/v2/deployments/${encodeURIComponent(deploymentId)}/runtime`;

/** The official SDK's client, on the deployment's runtime (through the control plane) or another. */
export function runtimeClient(target: RuntimeTarget, controlPlaneKey: string): Client {
  if (target.kind === 'direct') {
    return new Client({ apiUrl: target.url.replace(/\/+$/, ''), apiKey: target.apiKey });
  }
  return new Client({
    apiUrl: `${window.location.origin}${runtimeGatewayPath(target.deploymentId)}`,
    apiKey: controlPlaneKey,
  });
}
