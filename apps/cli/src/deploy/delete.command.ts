import { createInterface } from 'node:readline/promises';
import { parseCommandArgs, usageError } from '#libs/config';
import type { CliEnvironment } from '../cli.config.js';
import { connect } from './connection.js';
import { ApiError, type DeployClient } from '#libs/control-plane-client';
import { findDeployment } from './deployment-ref.js';

export const DELETE_HELP = `Usage: berth deploy delete <ID|NAME> [--force] [--no-wait]

Deletes a deployment: stops its runtime and removes its revisions, builds, database and secrets.
Asks "Delete deployment <name> (<id>)? [y/N]" first when stdin is a terminal; --force (or no
terminal, as in CI) skips the question.

  --force, -f   do not ask
  --no-wait     return once the control plane accepted the deletion`;

const GONE_TIMEOUT_MS = 60_000;

/** Whether an answer to a yes/no question means yes. */
export function isYes(answer: string): boolean {
  return /^\s*y(es)?\s*$/i.test(answer);
}

export async function deleteDeployment(
  args: readonly string[],
  env: CliEnvironment,
): Promise<void> {
  const { values, positionals } = parseCommandArgs(DELETE_HELP, {
    args: [...args],
    allowPositionals: true,
    options: {
      force: { type: 'boolean', short: 'f' },
      'no-wait': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(DELETE_HELP);
    return;
  }
  const [ref, ...rest] = positionals;
  if (ref === undefined) throw usageError('name the deployment to delete', DELETE_HELP);
  if (rest.length > 0) throw usageError(`unexpected argument ${rest.join(' ')}`, DELETE_HELP);
  const { client } = await connect(env, process.cwd());
  const deployment = await findDeployment(client, ref);
  if (!values.force && env.stdinIsTty) {
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt
      .question(`Delete deployment ${deployment.name} (${deployment.id})? [y/N] `)
      .finally(() => {
        prompt.close();
      });
    if (!isYes(answer)) throw new Error('not deleted');
  }
  await client.deleteDeployment(deployment.id);
  if (!values['no-wait']) await waitUntilGone(client, deployment.id);
  console.log(`Deleted deployment ${deployment.name} (${deployment.id})`);
}

/** The control plane tears a deployment down after answering: wait until it is gone. */
async function waitUntilGone(client: DeployClient, id: string): Promise<void> {
  const deadline = Date.now() + GONE_TIMEOUT_MS;
  while (Date.now() < deadline) {
    try {
      await client.getDeployment(id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return;
      throw error;
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  throw new Error(`deployment ${id} is still being deleted after ${GONE_TIMEOUT_MS / 1000}s`);
}
