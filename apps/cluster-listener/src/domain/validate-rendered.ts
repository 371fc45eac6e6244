import { isDns1123Label } from './kube-names.js';
import type { RenderedObject } from './render/render-revision.js';

/** The Kubernetes version whose OpenAPI schema the rendered objects are checked against. */
export const KUBERNETES_SCHEMA_VERSION = '1.33.0';

export interface RenderProblem {
  readonly object: string;
  readonly problem: string;
}

const MAX_PORT_NAME = 15;

function describeObject(object: RenderedObject): string {
  return `${object.kind}/${object.metadata?.name ?? '?'}`;
}

/** Every DNS-label name in a pod spec: containers, volumes, ports. */
function podNames(spec: Record<string, unknown> | undefined): { kind: string; name: string }[] {
  if (!spec) return [];
  const containers = [
    ...((spec.initContainers as { name: string; ports?: { name?: string }[] }[] | undefined) ?? []),
    ...((spec.containers as { name: string; ports?: { name?: string }[] }[] | undefined) ?? []),
  ];
  return [
    ...containers.map(({ name }) => ({ kind: 'container', name })),
    ...((spec.volumes as { name: string }[] | undefined) ?? []).map(({ name }) => ({
      kind: 'volume',
      name,
    })),
    ...containers.flatMap((container) =>
      (container.ports ?? [])
        .filter((port) => port.name !== undefined)
        .map((port) => ({ kind: 'port', name: port.name as string })),
    ),
  ];
}

function namingProblems(object: RenderedObject): string[] {
  const problems: string[] = [];
  const name = object.metadata?.name ?? '';
  if (!isDns1123Label(name)) problems.push(`name "${name}" is not a DNS-1123 label`);
  const json = object.toJSON() as { spec?: { template?: { spec?: Record<string, unknown> } } };
  for (const part of podNames(json.spec?.template?.spec)) {
    if (!isDns1123Label(part.name))
      problems.push(`${part.kind} name "${part.name}" is not a DNS-1123 label`);
    if (part.kind === 'port' && part.name.length > MAX_PORT_NAME) {
      problems.push(`port name "${part.name}" is longer than ${MAX_PORT_NAME} characters`);
    }
  }
  return problems;
}

/**
 * What is wrong with rendered objects: each checked against the OpenAPI schema of Kubernetes
 * `KUBERNETES_SCHEMA_VERSION` (through kubernetes-models), and its names as DNS-1123 labels,
 * which the schema does not check.
 */
export function renderProblems(objects: readonly RenderedObject[]): RenderProblem[] {
  return objects.flatMap((object) => {
    const problems = namingProblems(object);
    try {
      object.validate();
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
    return problems.map((problem) => ({ object: describeObject(object), problem }));
  });
}
