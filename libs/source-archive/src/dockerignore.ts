/**
 * Rewrites `.dockerignore` lines as gitignore patterns for the `ignore` package. Docker matches
 * every pattern from the context root (`*.md` is only the root's, `**` reaches any depth) and
 * cleans trailing slashes, so each pattern is anchored with a leading `/` and loses its trailing
 * `/`. Unlike Docker, a `!` exception cannot bring back a file below an excluded directory: the
 * walk does not enter excluded directories (git's rule).
 */
export function dockerignoreToGitignore(text: string): string[] {
  const patterns: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const negated = line.startsWith('!');
    const body = (negated ? line.slice(1).trim() : line).replace(/^\/+/, '').replace(/\/+$/, '');
    if (body === '' || body === '.') continue;
    patterns.push(`${negated ? '!' : ''}/${body}`);
  }
  return patterns;
}
