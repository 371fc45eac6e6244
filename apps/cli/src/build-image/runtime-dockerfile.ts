/** Where the application sits in the image, and where Berth's runtime is in its base image. */
export const APP_DIR = '/deps/app';
const RUNTIME_MAIN = '/berth/dist/apps/agent-runtime/src/main.js';
export const RUNTIME_PORT = 8000;

/** The first line of every Dockerfile this writes: what may be written over. */
export const DOCKERFILE_MARK = '# Written by `berth build-image`';

export interface RuntimeImageInput {
  /** The application's name, for the comments. */
  readonly name: string;
  /** Berth's own image (the repository's Dockerfile), which holds the runtime. */
  readonly baseImage: string;
  /** The graph configuration's path inside the application directory. */
  readonly configPath: string;
  /** `dockerfile_lines` of the graph configuration, run as root before the application is copied. */
  readonly dockerfileLines: readonly string[];
  /** How the application's dependencies are installed, when it has any. */
  readonly install: { readonly command: string; readonly reason: string } | undefined;
  readonly berthVersion: string;
}

/**
 * The Dockerfile of an application's runtime image: Berth's image, the graph configuration's
 * `dockerfile_lines`, the application with its dependencies installed, and the runtime serving
 * it on port 8000 as an unprivileged user.
 */
export function runtimeDockerfile(input: RuntimeImageInput): string {
  const install = input.install
    ? [`# Dependencies: ${input.install.reason}.`, `RUN ${input.install.command}`]
    : ['# No package.json: nothing to install.'];
  const lines = input.dockerfileLines.length
    ? ['# dockerfile_lines of the graph configuration.', ...input.dockerfileLines]
    : [];
  return [
    DOCKERFILE_MARK,
    `# The application "${input.name}" in Berth's agent runtime (Berth ${input.berthVersion}).`,
    "# Build it from the application directory and name the image in the deployment's image_uri:",
    `#   docker build -f Dockerfile -t registry.example/${input.name}:1 .`,
    `FROM ${input.baseImage}`,
    'USER root',
    ...lines,
    `WORKDIR ${APP_DIR}`,
    `COPY --chown=node:node . ${APP_DIR}`,
    'USER node',
    ...install,
    `ENV BERTH_GRAPH_CONFIG=${APP_DIR}/${input.configPath} \\`,
    '    BERTH_HOST=0.0.0.0 \\',
    `    BERTH_RUNTIME_PORT=${RUNTIME_PORT} \\`,
    '    BERTH_DATA_DIR=/var/lib/berth',
    `EXPOSE ${RUNTIME_PORT}`,
    'HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \\',
    `  CMD ["node", "-e", "fetch('http://127.0.0.1:${RUNTIME_PORT}/ok').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]`,
    'ENTRYPOINT ["/usr/bin/tini", "--"]',
    `CMD ["node", "${RUNTIME_MAIN}"]`,
    '',
  ].join('\n');
}

/** What a Dockerfile build of the application leaves out: what is made again, and local data. */
export const DOCKERIGNORE = [
  'node_modules',
  '.berth',
  '.git',
  '.env',
  'Dockerfile',
  '.dockerignore',
  '',
].join('\n');
