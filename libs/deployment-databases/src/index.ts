export * from './connection-budget.js';
export * from './deployment-database-name.js';
export * from './deployment-database-roles.js';
