import { defaultDeploymentName, projectNameFrom } from './project-name.js';

describe('projectNameFrom', () => {
  it.each([
    ['agent', 'agent'],
    ['My Agent', 'my-agent'],
    ['my_agent.v2', 'my-agent-v2'],
    ['  --Weird__Name!!  ', 'weird-name'],
    ['Café Résumé', 'cafe-resume'],
    ['a---b', 'a-b'],
    ['___', ''],
    ['日本', ''],
  ])('%j becomes %j', (dir, name) => {
    expect(projectNameFrom(dir)).toBe(name);
  });

  it('stays within 128 characters and does not end with a dash', () => {
    const name = projectNameFrom(`${'a'.repeat(127)} b`);
    expect(name).toBe('a'.repeat(127));
    expect(projectNameFrom('x'.repeat(300))).toHaveLength(128);
  });

  it('names a project after the last segment of its directory', () => {
    expect(defaultDeploymentName('/tmp/projects/Weather Bot/')).toBe('weather-bot');
  });
});
