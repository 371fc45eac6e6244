import { Secret } from 'kubernetes-models/v1/Secret';
import { metadataOf, type RenderContext } from './render-context.js';

/** The revision's secrets, which the runtime's pods read as environment variables. */
export function deploymentSecrets(context: RenderContext): Secret | undefined {
  const { secrets } = context.revision;
  if (secrets.length === 0) return undefined;
  return new Secret({
    metadata: metadataOf(context, context.names.secrets),
    type: 'Opaque',
    stringData: Object.fromEntries(secrets.map(({ name, value }) => [name, value])),
  });
}

/** The database's credentials, and the URL the runtime connects with (`DATABASE_URL`). */
export function databaseCredentials(context: RenderContext): Secret {
  const { database } = context.revision;
  const url =
    database.kind === 'external'
      ? database.url
      : `postgres://berth:${encodeURIComponent(database.password)}@${context.names.database}:5432/berth`;
  return new Secret({
    metadata: metadataOf(context, context.names.databaseCredentials, 'database'),
    type: 'Opaque',
    stringData: {
      url,
      ...(database.kind === 'in_cluster' ? { username: 'berth', password: database.password } : {}),
      ...(database.masterKey ? { 'master-key': database.masterKey } : {}),
    },
  });
}
