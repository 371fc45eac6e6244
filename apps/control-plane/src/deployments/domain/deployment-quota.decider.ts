import { conflict, type Decider } from '#libs/domain';

export type DeploymentQuotaEvent =
  | { readonly type: 'TenantDeploymentCounted'; readonly data: { deployment_id: string } }
  | { readonly type: 'TenantDeploymentReleased'; readonly data: { deployment_id: string } };

export type DeploymentQuotaCommand =
  | {
      readonly kind: 'take';
      readonly deployment_id: string;
      /** `BERTH_TENANT_MAX_DEPLOYMENTS`. */
      readonly max: number;
      /**
       * The tenant's deployments in the read model: those made before this stream was kept count
       * too. One released here is not counted, whether the read model still lists it or not.
       */
      readonly listed: readonly string[];
    }
  | { readonly kind: 'release'; readonly deployment_id: string };

export interface DeploymentQuotaState {
  readonly counted: ReadonlySet<string>;
  readonly released: ReadonlySet<string>;
}

/**
 * One stream per tenant: appends to it serialize, so two creations racing for the tenant's last
 * place never both get it.
 */
export const deploymentQuotaStream = (tenantId: string): string => `deployment_quota-${tenantId}`;

/** The deployments the tenant has now, besides `except`. */
export function liveDeployments(
  state: DeploymentQuotaState,
  listed: readonly string[],
  except: string,
): Set<string> {
  const live = new Set([...state.counted, ...listed]);
  for (const id of state.released) live.delete(id);
  live.delete(except);
  return live;
}

export const deploymentQuotaDecider: Decider<
  DeploymentQuotaState,
  DeploymentQuotaCommand,
  DeploymentQuotaEvent
> = {
  initialState: { counted: new Set(), released: new Set() },
  evolve: (state, event) =>
    event.type === 'TenantDeploymentCounted'
      ? { ...state, counted: new Set([...state.counted, event.data.deployment_id]) }
      : { ...state, released: new Set([...state.released, event.data.deployment_id]) },
  decide: (command, state) => {
    const id = command.deployment_id;
    if (command.kind === 'release') {
      return state.released.has(id)
        ? []
        : [{ type: 'TenantDeploymentReleased', data: { deployment_id: id } }];
    }
    // A retried create of the same deployment, or one that was deleted since: nothing to count.
    if (state.counted.has(id) || state.released.has(id)) return [];
    const live = liveDeployments(state, command.listed, id).size;
    if (live >= command.max) {
      throw conflict(
        `This tenant has ${live} deployments, the most it may have ` +
          `(BERTH_TENANT_MAX_DEPLOYMENTS=${command.max}): delete one to create another`,
      );
    }
    return [{ type: 'TenantDeploymentCounted', data: { deployment_id: id } }];
  },
};
