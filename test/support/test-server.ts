/**
 * Where the integration tests find PostgreSQL: the server named by DATABASE_URL, or the embedded
 * one that the global setup started (its URL travels to the test files in this variable).
 */
export const TEST_SERVER_URL_VARIABLE = 'BERTH_TEST_SERVER_URL';

export function testServerUrl(): string {
  const url = process.env[TEST_SERVER_URL_VARIABLE];
  if (!url) throw new Error('The integration tests run under test/support/global-setup.ts');
  return url;
}
