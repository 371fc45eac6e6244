import { createHash } from 'node:crypto';
import { conflict, type Decider } from '#libs/domain';

export type NameClaimEvent =
  | {
      readonly type: 'DeploymentNameClaimed';
      readonly data: { deployment_id: string; name: string };
    }
  | { readonly type: 'DeploymentNameReleased'; readonly data: { deployment_id: string } };

export type NameClaimCommand =
  | { readonly kind: 'claim'; readonly deployment_id: string; readonly name: string }
  | { readonly kind: 'release'; readonly deployment_id: string };

export type NameClaimState = { holder: string | null };

/** One stream per (tenant, name): appends to it serialize, so two deployments never share a name. */
export const nameClaimStream = (tenantId: string, name: string): string =>
  `deployment_name-${tenantId}-${createHash('sha256').update(name).digest('hex').slice(0, 32)}`;

export const nameClaimDecider: Decider<NameClaimState, NameClaimCommand, NameClaimEvent> = {
  initialState: { holder: null },
  evolve: (_, event) => ({
    holder: event.type === 'DeploymentNameClaimed' ? event.data.deployment_id : null,
  }),
  decide: (command, state) => {
    if (command.kind === 'release') {
      return state.holder === command.deployment_id
        ? [{ type: 'DeploymentNameReleased', data: { deployment_id: command.deployment_id } }]
        : [];
    }
    if (state.holder === command.deployment_id) return [];
    if (state.holder) throw conflict(`A deployment named "${command.name}" already exists`);
    return [
      {
        type: 'DeploymentNameClaimed',
        data: { deployment_id: command.deployment_id, name: command.name },
      },
    ];
  },
};
