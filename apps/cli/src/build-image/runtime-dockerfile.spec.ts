import { describe, expect, it } from '@jest/globals';
import {
  DOCKERFILE_MARK,
  runtimeDockerfile,
  type RuntimeImageInput,
} from './runtime-dockerfile.js';

const input: RuntimeImageInput = {
  name: 'support-agent',
  baseImage: 'berth:0.1.0',
  configPath: 'config/langgraph.json',
  dockerfileLines: [
    'RUN apt-get update && apt-get install -y --no-install-recommends poppler-utils',
  ],
  install: {
    command: 'npm ci --no-audit --no-fund --prefer-offline',
    reason: 'detected from package-lock.json',
  },
  berthVersion: '0.1.0',
};

const instructions = (dockerfile: string): string[] =>
  dockerfile
    .split('\n')
    .filter((line) => /^[A-Z]+ /.test(line))
    .map((line) => line.split(' ')[0] ?? '');

describe('runtimeDockerfile', () => {
  const dockerfile = runtimeDockerfile(input);

  it("starts with the mark that lets it be written over, and Berth's image", () => {
    expect(dockerfile.split('\n')[0]).toBe(DOCKERFILE_MARK);
    expect(dockerfile).toMatch(/^FROM berth:0\.1\.0$/m);
  });

  it('runs dockerfile_lines as root before the application is copied and installed as node', () => {
    expect(instructions(dockerfile)).toEqual([
      'FROM',
      'USER',
      'RUN',
      'WORKDIR',
      'COPY',
      'USER',
      'RUN',
      'ENV',
      'EXPOSE',
      'HEALTHCHECK',
      'ENTRYPOINT',
      'CMD',
    ]);
    const lines = dockerfile.split('\n');
    const at = (text: string): number => lines.findIndex((line) => line.startsWith(text));
    expect(at('USER root')).toBeLessThan(at('RUN apt-get'));
    expect(at('RUN apt-get')).toBeLessThan(at('COPY --chown=node:node . /deps/app'));
    expect(at('USER node')).toBeLessThan(at('RUN npm ci'));
  });

  it('serves the graph configuration on port 8000 with the runtime of the base image', () => {
    expect(dockerfile).toContain('ENV BERTH_GRAPH_CONFIG=/deps/app/config/langgraph.json \\');
    expect(dockerfile).toContain('    BERTH_RUNTIME_PORT=8000 \\');
    expect(dockerfile).toMatch(/^EXPOSE 8000$/m);
    expect(dockerfile).toMatch(/127\.0\.0\.1:8000\/ok/);
    expect(dockerfile).toMatch(
      /^CMD \["node", "\/berth\/dist\/apps\/agent-runtime\/src\/main\.js"\]$/m,
    );
  });

  it('says why it installs what it installs, and installs nothing without a package.json', () => {
    expect(dockerfile).toContain('# Dependencies: detected from package-lock.json.');
    const bare = runtimeDockerfile({ ...input, install: undefined, dockerfileLines: [] });
    expect(bare).toContain('# No package.json: nothing to install.');
    expect(instructions(bare)).not.toContain('RUN');
  });
});
