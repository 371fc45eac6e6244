const shared = {
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^#libs/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
};

/** @type {import('jest').Config} */
export default {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'],
      testPathIgnorePatterns: ['<rootDir>/apps/console/'],
    },
    {
      ...shared,
      displayName: 'console',
      testMatch: ['<rootDir>/apps/console/src/**/*.spec.{ts,tsx}'],
      moduleNameMapper: {},
      transform: {
        '^.+\\.tsx?$': [
          'ts-jest',
          { useESM: true, tsconfig: '<rootDir>/apps/console/tsconfig.json' },
        ],
      },
      extensionsToTreatAsEsm: ['.ts', '.tsx'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/dist/test/support/global-setup.js',
      globalTeardown: '<rootDir>/dist/test/support/global-teardown.js',
    },
  ],
  // Per-project `testTimeout` is ignored by Jest; end-to-end tests start processes and wait on runs.
  testTimeout: 30000,
};
