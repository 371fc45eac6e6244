import { join, relative, isAbsolute } from 'node:path';
import { checkGraphConfigFile, GraphConfigError } from '#libs/graph-config';

/**
 * What `berth deploy` checks of the project before anything is sent: the graph configuration as
 * the runtime reads it (the same one-line message `berth dev` gives), and every graph's file
 * inside the directory that is uploaded.
 */
export async function checkGraphConfigBeforeUpload(
  dir: string,
  graphConfigPath: string,
): Promise<void> {
  const { configFile, graphs } = await checkGraphConfigFile(join(dir, graphConfigPath));
  for (const [graphId, spec] of graphs) {
    const inside = relative(dir, spec.file);
    if (inside.startsWith('..') || isAbsolute(inside)) {
      throw new GraphConfigError(
        configFile,
        `graph "${graphId}": file ${spec.file} is outside ${dir}, which is what is uploaded`,
      );
    }
  }
}
