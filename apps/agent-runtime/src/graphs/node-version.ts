function parts(version: string): number[] | undefined {
  const match = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version.trim());
  if (!match) return undefined;
  const groups: (string | undefined)[] = match.slice(1);
  return groups.map((part) => Number(part ?? 0));
}

/**
 * Why `running` (Node's `process.versions.node`) does not satisfy `langgraph.json`'s
 * `node_version` (`"20"`, `"22.5"`, `"22.5.1"`: the least version), or undefined when it does.
 */
export function nodeVersionProblem(required: string, running: string): string | undefined {
  const least = parts(required);
  if (!least) return `"node_version" must be a version such as "20" or "22.5", not "${required}"`;
  const have = parts(running) ?? [0, 0, 0];
  for (let i = 0; i < least.length; i += 1) {
    const [want, got] = [least[i] ?? 0, have[i] ?? 0];
    if (got > want) return undefined;
    if (got < want) {
      return `"node_version" requires Node ${required} or newer; this runtime runs Node ${running}`;
    }
  }
  return undefined;
}
