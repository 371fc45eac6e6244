/** Each deployment's own database on a PostgreSQL server it shares with others. */
export const deploymentDatabaseName = (deploymentId: string): string =>
  `berth_deployment_${deploymentId.replace(/-/g, '')}`;
