import { realpath } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative } from 'node:path';
import { build, type BuildFailure, type Message, type Plugin } from 'esbuild';
import {
  PAGE_PROVIDED,
  bundleGlobalOf,
  entrySource,
  isPageProvided,
  pageModuleSource,
  withPlainPageRequire,
} from './ui-entry.js';

/** One file of an agent's bundle: `entrypoint.js`, and `entrypoint.css` when it has styles. */
export interface UiFile {
  readonly name: string;
  readonly contents: Uint8Array;
}

/** Why an agent's components could not be bundled; the message is for the log and the client. */
export class UiBundleError extends Error {
  override readonly name = 'UiBundleError';
}

export interface UiBundleRequest {
  readonly agent: string;
  /** The component module, absolute. */
  readonly componentFile: string;
  /** The application's directory: the component module must be inside it. */
  readonly appDir: string;
  /** `ui_config.shared`: more packages the page provides. */
  readonly shared: readonly string[];
}

const ENTRY = 'berth-ui-entry';

/**
 * Bundles an agent's components for the browser: one script defining the agent's global (see
 * `bundleGlobalOf`), and its styles. React, the SDK and the shared packages are not bundled: the
 * script asks the page for them. esbuild only reads files; none of the application's code runs.
 */
export async function bundleUi(request: UiBundleRequest): Promise<UiFile[]> {
  const componentFile = await insideApplication(request.componentFile, request.appDir);
  const pagePackages = [...PAGE_PROVIDED, ...request.shared];
  try {
    const result = await build({
      entryPoints: [{ in: ENTRY, out: 'entrypoint' }],
      absWorkingDir: request.appDir,
      // Names the outputs only: nothing is written.
      outdir: join(request.appDir, 'ui-bundle'),
      write: false,
      bundle: true,
      platform: 'browser',
      format: 'iife',
      globalName: bundleGlobalOf(request.agent),
      target: 'es2020',
      jsx: 'automatic',
      logLevel: 'silent',
      plugins: [
        entryPlugin(request.agent, componentFile, request.appDir),
        pageModulesPlugin(pagePackages),
      ],
    });
    return result.outputFiles.map((file) => ({
      name: basename(file.path),
      contents:
        extname(file.path) === '.js'
          ? new TextEncoder().encode(withPlainPageRequire(file.text))
          : file.contents,
    }));
  } catch (error) {
    throw new UiBundleError(bundleFailureText(error, request.appDir));
  }
}

/** The component module's real path, refused when it (or a link on its way) leads outside. */
async function insideApplication(file: string, appDir: string): Promise<string> {
  const [realFile, realDir] = await Promise.all([
    realpath(file).catch(() => {
      throw new UiBundleError(`${file} does not exist`);
    }),
    realpath(appDir),
  ]);
  const inside = relative(realDir, realFile);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new UiBundleError(`${file} is outside the application's directory ${appDir}`);
  }
  return realFile;
}

function entryPlugin(agent: string, componentFile: string, appDir: string): Plugin {
  return {
    name: 'berth-ui-entry',
    setup(builder) {
      builder.onResolve({ filter: new RegExp(`^${ENTRY}$`) }, () => ({
        path: ENTRY,
        namespace: ENTRY,
      }));
      builder.onLoad({ filter: /.*/, namespace: ENTRY }, () => ({
        contents: entrySource(agent, componentFile),
        resolveDir: appDir,
        loader: 'js',
      }));
    },
  };
}

function pageModulesPlugin(packages: readonly string[]): Plugin {
  const namespace = 'berth-ui-page';
  return {
    name: 'berth-ui-page-modules',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) =>
        isPageProvided(args.path, packages) ? { path: args.path, namespace } : undefined,
      );
      builder.onLoad({ filter: /.*/, namespace }, (args) => ({
        contents: pageModuleSource(args.path),
        loader: 'js',
      }));
    },
  };
}

function bundleFailureText(error: unknown, appDir: string): string {
  const errors = (error as Partial<BuildFailure>).errors;
  if (!Array.isArray(errors) || errors.length === 0) {
    return error instanceof Error ? error.message : String(error);
  }
  return errors.map((message) => messageText(message, appDir)).join('\n');
}

function messageText(message: Message, appDir: string): string {
  const at = message.location;
  // The entry is Berth's: where in it says nothing to the application's author.
  if (!at || at.file.startsWith(`${ENTRY}:`)) {
    return message.text.endsWith('for import "default"')
      ? `${message.text}: the module must export by default an object of its components by name`
      : message.text;
  }
  const file = isAbsolute(at.file) ? relative(appDir, at.file) : at.file;
  return `${file}:${at.line}:${at.column}: ${message.text}`;
}
