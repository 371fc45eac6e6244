import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { parseCommandArgs } from '#libs/config';
import { packDirectory } from '#libs/source-archive';
import type { CliEnvironment } from '../cli.config.js';
import { UsageError } from '../commands/scripts.js';
import { connect } from './connection.js';
import {
  ApiError,
  type Deployment,
  type DeployClient,
  type DeploymentType,
  type LogLine,
} from '#libs/control-plane-client';
import { describeLeftOut } from './left-out.js';
import { defaultDeploymentName } from './project-name.js';
import { checkGraphConfigBeforeUpload } from './graph-config-check.js';
import { Reporter } from './reporter.js';
import { secretsFromDotenv, type Secret } from './secrets.js';
import { FINAL_STATUSES, describeStatus } from './status-line.js';

const POLL_INTERVAL_MS = 500;
const LOG_TAIL_LINES = 40;
/** Consecutive failed polls tolerated (a restarting control plane) before giving up. */
const POLL_RETRIES = 10;

interface DeployOptions {
  readonly dir: string;
  readonly name: string;
  readonly deploymentType: DeploymentType;
  readonly explicitType: boolean;
  readonly graphConfigPath: string | undefined;
  readonly image: string | undefined;
  readonly wait: boolean;
  readonly json: boolean;
}

/** `berth deploy [dir]`: find or create the deployment, upload, revise, follow. */
export async function deployProject(
  args: readonly string[],
  env: CliEnvironment,
  help: string,
): Promise<void> {
  const options = await parseDeployArgs(args, help);
  if (!options) return;
  if (options.graphConfigPath)
    await checkGraphConfigBeforeUpload(options.dir, options.graphConfigPath);
  const { client, dotenv, platform } = await connect(env, options.dir);
  const report = new Reporter(options.json, env.stdoutIsTty);
  const selection = dotenv ? secretsFromDotenv(dotenv) : undefined;
  report.note(
    `Deploying ${options.dir} as "${options.name}" to ${client.url}` +
      (platform ? ` (${platform})` : ''),
  );
  if (selection?.withheld.length) {
    report.note(
      `Not sent from .env: ${selection.withheld.join(', ')} (the CLI's own or reserved variables)`,
    );
  }
  if (selection?.secrets.length) {
    report.note(`Secrets from .env: ${selection.secrets.map((secret) => secret.name).join(', ')}`);
  }
  const secrets = selection?.secrets;

  const { deployment, created } = await findOrCreate(client, options, secrets, report);
  const revisionId = options.image
    ? await reviseImage(client, deployment, created, options.image, secrets)
    : await reviseSource(client, deployment, options, secrets, report);
  report.event('revision_created', { deployment_id: deployment.id, revision_id: revisionId });
  if (!options.wait) {
    report.event('submitted', { deployment_id: deployment.id, revision_id: revisionId });
    report.note(`Revision ${revisionId} submitted.`);
    report.note(`Follow it with: berth deploy logs ${deployment.id} --follow`);
    return;
  }
  report.note(`Revision ${revisionId}`);
  await followRevision(client, deployment, revisionId, report);
}

async function parseDeployArgs(
  args: readonly string[],
  help: string,
): Promise<DeployOptions | undefined> {
  const { values, positionals } = parseCommandArgs(help, {
    args: [...args],
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'deployment-type': { type: 'string' },
      config: { type: 'string' },
      image: { type: 'string' },
      'no-wait': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(help);
    return undefined;
  }
  if (positionals.length > 1)
    throw new UsageError(`deploy takes one directory, got ${positionals.join(' ')}`);
  const dir = resolve(positionals[0] ?? '.');
  const isDirectory = await stat(dir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory) throw new UsageError(`${dir} is not a directory`);

  const type = values['deployment-type'] ?? 'dev';
  if (type !== 'dev' && type !== 'prod')
    throw new UsageError(`--deployment-type must be dev or prod, got "${type}"`);
  const name = values.name ?? defaultDeploymentName(dir);
  if (!name)
    throw new UsageError(`cannot make a deployment name from the directory ${dir}: use --name`);
  // The control plane's rule for names (a label, never a path).
  if (name.length > 128 || /\p{Cc}|\/|\.\./u.test(name))
    throw new UsageError(
      `--name must be 1 to 128 characters, without '/', '..' or control characters`,
    );

  const image = values.image?.trim();
  if (values.image !== undefined && !image) throw new UsageError('--image needs an image URI');
  if (image && values['deployment-type'] !== undefined)
    throw new UsageError('--deployment-type applies to source deployments, not to --image');
  if (image && values.config !== undefined)
    throw new UsageError('--config does not apply to --image (the image holds its application)');
  return {
    dir,
    name,
    deploymentType: type,
    explicitType: values['deployment-type'] !== undefined,
    graphConfigPath: image ? undefined : await graphConfigPath(dir, values.config),
    image,
    wait: !values['no-wait'],
    json: values.json ?? false,
  };
}

/** The graph configuration's path relative to the project, checked to be a file in it. */
async function graphConfigPath(dir: string, given: string | undefined): Promise<string> {
  const file = resolve(dir, given ?? 'langgraph.json');
  const inside = relative(dir, file);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    throw new UsageError(`--config must name a file inside ${dir}, got "${given ?? ''}"`);
  const isFile = await stat(file).then(
    (stats) => stats.isFile(),
    () => false,
  );
  if (!isFile) {
    throw new UsageError(
      `no graph configuration at ${file}` +
        (given === undefined ? ' (use --config to name another file)' : ''),
    );
  }
  return inside.split(sep).join('/');
}

async function findOrCreate(
  client: DeployClient,
  options: DeployOptions,
  secrets: Secret[] | undefined,
  report: Reporter,
): Promise<{ deployment: Deployment; created: boolean }> {
  const source = options.image ? 'external_container' : 'internal_source';
  const existing = await client.findByName(options.name);
  if (existing) {
    if (existing.source !== source) {
      throw new Error(
        `deployment "${existing.name}" (${existing.id}) is a ${existing.source} deployment; ` +
          `this would make a ${source} revision: use another --name`,
      );
    }
    const type = existing.source_config.deployment_type;
    if (options.explicitType && type && type !== options.deploymentType) {
      report.note(`Note: "${existing.name}" keeps its deployment type ${type}`);
    }
    report.note(`Updating deployment ${existing.name} (${existing.id})`);
    report.event('deployment', { deployment_id: existing.id, name: existing.name, created: false });
    return { deployment: existing, created: false };
  }
  const body = options.image
    ? {
        name: options.name,
        source,
        source_config: { listener_id: await clusterListener(client) },
        source_revision_config: { image_uri: options.image },
        secrets: secrets ?? [],
      }
    : {
        name: options.name,
        source,
        source_config: { deployment_type: options.deploymentType },
        source_revision_config: { graph_config_path: options.graphConfigPath },
        secrets: secrets ?? [],
      };
  const deployment = await client.createDeployment(body);
  report.note(
    `Created deployment ${deployment.name} (${deployment.id})` +
      (options.image ? ` from the image ${options.image}` : `, type ${options.deploymentType}`),
  );
  report.event('deployment', {
    deployment_id: deployment.id,
    name: deployment.name,
    created: true,
  });
  return { deployment, created: true };
}

/** An image runs on a cluster listener: the local one only builds sources. */
async function clusterListener(client: DeployClient): Promise<string> {
  const { resources } = await client.listListeners();
  const cluster = resources.find((listener) => listener.compute_type === 'cluster');
  if (!cluster) {
    throw new Error(
      `--image needs a cluster listener to run the image, and none is registered at ` +
        `${client.url} (the local listener builds and runs sources only: deploy the directory instead)`,
    );
  }
  return cluster.id;
}

async function reviseImage(
  client: DeployClient,
  deployment: Deployment,
  created: boolean,
  image: string,
  secrets: Secret[] | undefined,
): Promise<string> {
  let revised = deployment;
  if (!created || !deployment.latest_revision_id) {
    revised = await client.patchDeployment(deployment.id, {
      source_revision_config: { image_uri: image },
      ...(secrets ? { secrets } : {}),
    });
  }
  if (!revised.latest_revision_id) throw new Error('the control plane made no revision');
  return revised.latest_revision_id;
}

async function reviseSource(
  client: DeployClient,
  deployment: Deployment,
  options: DeployOptions,
  secrets: Secret[] | undefined,
  report: Reporter,
): Promise<string> {
  const packed = await packDirectory(options.dir);
  report.note(`Packed ${packed.files.length} files (${formatSize(packed.bytes)})`);
  for (const line of describeLeftOut(packed.leftOut)) report.note(line);
  const issued = await client.issueUpload(deployment.id);
  await client.upload(issued.upload_url, packed.archive);
  report.event('uploaded', {
    deployment_id: deployment.id,
    object_path: issued.object_path,
    files: packed.files.length,
    bytes: packed.bytes,
    left_out: packed.leftOut,
  });
  const patched = await client.patchDeployment(deployment.id, {
    source_revision_config: {
      source_tarball_path: issued.object_path,
      graph_config_path: options.graphConfigPath,
    },
    ...(secrets ? { secrets } : {}),
  });
  if (!patched.latest_revision_id) throw new Error('the control plane made no revision');
  return patched.latest_revision_id;
}

/** Polls the revision until it is final; prints the URL, or the log tail and fails. */
async function followRevision(
  client: DeployClient,
  deployment: Deployment,
  revisionId: string,
  report: Reporter,
): Promise<void> {
  const started = Date.now();
  const stopFollowing = (): void => {
    report.end();
    process.stderr.write(
      `berth: stopped following; revision ${revisionId} goes on. ` +
        `Follow it with: berth deploy logs ${deployment.id} --follow\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', stopFollowing);
  try {
    let last: string | undefined;
    let failures = 0;
    for (;;) {
      let revision;
      try {
        revision = await client.getRevision(deployment.id, revisionId);
        failures = 0;
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 0 || ++failures > POLL_RETRIES)
          throw error;
        await sleep(POLL_INTERVAL_MS * 2);
        continue;
      }
      report.status(revision.status);
      if (revision.status !== last) {
        report.event('revision', {
          deployment_id: deployment.id,
          revision_id: revisionId,
          status: revision.status,
          status_message: revision.status_message,
          elapsed_s: Math.floor((Date.now() - started) / 1000),
        });
        last = revision.status;
      }
      if (FINAL_STATUSES.has(revision.status)) {
        report.end();
        if (revision.status === 'DEPLOYED') {
          await deployed(client, deployment, revisionId, report);
          return;
        }
        await failed(
          client,
          deployment,
          revisionId,
          revision.status,
          revision.status_message,
          report,
        );
      }
      await sleep(POLL_INTERVAL_MS);
    }
  } finally {
    process.removeListener('SIGINT', stopFollowing);
  }
}

async function deployed(
  client: DeployClient,
  deployment: Deployment,
  revisionId: string,
  report: Reporter,
): Promise<void> {
  const current = await client.getDeployment(deployment.id);
  const url = current.source_config.custom_url ?? null;
  report.event('deployed', { deployment_id: deployment.id, revision_id: revisionId, url });
  report.note(`Deployed ${current.name}: revision ${revisionId} is live.`);
  report.note(url ? `URL: ${url}` : 'The deployment has no URL yet.');
}

async function failed(
  client: DeployClient,
  deployment: Deployment,
  revisionId: string,
  status: string,
  message: string | null,
  report: Reporter,
): Promise<never> {
  const lines: LogLine[] = await client
    .logs(deployment.id, revisionId, undefined)
    .then((page) => page.resources)
    .catch(() => []);
  const tail = lines.slice(-LOG_TAIL_LINES);
  report.event('failed', {
    deployment_id: deployment.id,
    revision_id: revisionId,
    status,
    status_message: message,
    log_tail: tail.map((line) => `[${line.type}] ${line.message}`),
  });
  if (!report.json && tail.length > 0) {
    process.stderr.write(
      `Last ${tail.length} log lines of revision ${revisionId}:\n` +
        tail.map((line) => `  [${line.type}] ${line.message}\n`).join(''),
    );
  }
  throw new Error(
    `revision ${revisionId}: ${describeStatus(status)}` +
      (message ? `: ${message.replace(/\s*\n\s*/g, ' ')}` : ''),
  );
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
