/** Top-level keys of `langgraph.json` that Berth reads. */
const READ = [
  'graphs',
  'env',
  'dependencies',
  'node_version',
  'http',
  'auth',
  'encryption',
  'checkpointer',
  'store',
  'ui',
  'ui_config',
  '$schema',
];
/** Keys that only shape the hosted platform's container image; Berth builds none. */
const IMAGE_ONLY = [
  'dockerfile_lines',
  'base_image',
  'image_distro',
  'api_version',
  'keep_pkg_tools',
  '_INTERNAL_docker_tag',
  'python_version',
  'pip_config_file',
  'pip_installer',
];
/** Keys Berth knows but does not apply yet, each with what that means. */
const NOT_APPLIED: Readonly<Record<string, string>> = {
  webhooks: 'the webhooks section is not applied',
};

/** A warning for each top-level key that Berth does not read, never a silent drop. */
export function unreadKeyWarnings(json: Record<string, unknown>): string[] {
  const warnings: string[] = [];
  for (const key of Object.keys(json)) {
    if (READ.includes(key)) continue;
    if (IMAGE_ONLY.includes(key)) {
      warnings.push(`"${key}" shapes a container image, which Berth does not build: it is ignored`);
    } else if (key in NOT_APPLIED) {
      warnings.push(`"${key}": ${NOT_APPLIED[key]}`);
    } else {
      warnings.push(`"${key}" is not a key Berth knows: it is ignored`);
    }
  }
  return warnings;
}
