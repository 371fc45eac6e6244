import type { Deployment, DeployClient } from '#libs/control-plane-client';
import { ApiError } from '#libs/control-plane-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The deployment an argument names: its id, or else its exact name. */
export async function findDeployment(client: DeployClient, ref: string): Promise<Deployment> {
  if (isUuid(ref)) {
    try {
      return await client.getDeployment(ref);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404)
        throw new Error(`no deployment with id ${ref} at ${client.url}`, { cause: error });
      throw error;
    }
  }
  const found = await client.findByName(ref);
  if (!found) throw new Error(`no deployment named "${ref}" at ${client.url}`);
  return found;
}
