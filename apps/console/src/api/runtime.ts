import { Client } from '@langchain/langgraph-sdk';

/** Which runtime the runtime pages talk to. */
export type RuntimeTarget =
  | { readonly kind: 'deployment'; readonly deploymentId: string }
  | { readonly kind: 'direct'; readonly url: string; readonly apiKey: string };

/** The path under which the control plane passes requests on to a deployment's runtime. */
export const runtimeGatewayPath = (deploymentId: string): string =>
  `/v2/deployments/${encodeURIComponent(deploymentId)}/runtime`;

/** Where the runtime answers, and with which key: the deployment's through the control plane. */
export function runtimeConnection(
  target: RuntimeTarget,
  controlPlaneKey: string,
): { readonly apiUrl: string; readonly apiKey: string } {
  if (target.kind === 'direct') {
    return { apiUrl: target.url.replace(/\/+$/, ''), apiKey: target.apiKey };
  }
  return {
    apiUrl: `${window.location.origin}${runtimeGatewayPath(target.deploymentId)}`,
    apiKey: controlPlaneKey,
  };
}

/** The official SDK's client, on the deployment's runtime (through the control plane) or another. */
export function runtimeClient(target: RuntimeTarget, controlPlaneKey: string): Client {
  return new Client(runtimeConnection(target, controlPlaneKey));
}
