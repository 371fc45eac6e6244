import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './control-plane.schema';
import { ApiError, detailText } from './api-error';

export type Deployment = components['schemas']['Deployment'];
export type Revision = components['schemas']['Revision'];
export type RevisionChanges = components['schemas']['RevisionChanges'];
export type ControlPlane = ReturnType<typeof controlPlaneClient>;

/** Every non-2xx answer becomes an ApiError carrying Berth's `detail`. */
const refusals: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const body: unknown = await response
      .clone()
      .json()
      .catch(() => undefined);
    const detail = (body as { detail?: unknown } | undefined)?.detail;
    throw new ApiError(
      response.status,
      detail === undefined ? response.statusText : detailText(detail),
    );
  },
};

/** The control plane's API on this origin, typed from its OpenAPI document. */
export function controlPlaneClient(apiKey: string, baseUrl = window.location.origin) {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } });
  client.use(refusals);
  return client;
}

/** The data of a typed call that succeeded (failures were thrown by the middleware). */
export function dataOf<T>(result: { data?: T }): T {
  if (result.data === undefined) throw new ApiError(0, 'The server sent no body');
  return result.data;
}
