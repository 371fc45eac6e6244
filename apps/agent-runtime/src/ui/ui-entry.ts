/** Packages the page gives the components (`bootstrapUiContext` of the SDK's react-ui), never bundled. */
export const PAGE_PROVIDED = ['react', 'react-dom', '@langchain/langgraph-sdk'] as const;

/** The global an agent's bundle defines: what the `onload` of its script tag calls `render` on. */
export function bundleGlobalOf(agent: string): string {
  return `__LGUI_${agent.replace(/[^a-zA-Z0-9]/g, '_')}`;
}

/**
 * The bundle's entry: `render(name, shadowRootId)` puts a container in the shadow root that
 * `LoadExternalComponent` attached, and hands the component and the container to the page's
 * component store, which renders it there with the page's React.
 */
export function entrySource(agent: string, componentFile: string): string {
  return [
    `import components from ${JSON.stringify(componentFile)};`,
    `export function render(name, shadowRootId) {`,
    `  const component = components[name];`,
    `  if (component === undefined) {`,
    `    throw new Error("No UI component " + JSON.stringify(name) + " in agent " + ${JSON.stringify(JSON.stringify(agent))});`,
    `  }`,
    `  const target = document.createElement("div");`,
    `  document.getElementById(shadowRootId).shadowRoot.appendChild(target);`,
    `  window[Symbol.for("LGUI_EXT_STORE")].respond(shadowRootId, component, target);`,
    `}`,
  ].join('\n');
}

/** The page's module lookup, as the bundle calls it (and as tools checking a bundle look for it). */
export const PAGE_REQUIRE = 'globalThis[Symbol.for("LGUI_REQUIRE")]';

/** A page-provided module: taken at run time from the page's `LGUI_REQUIRE`, by its specifier. */
export function pageModuleSource(specifier: string): string {
  return `module.exports = ${PAGE_REQUIRE}(${JSON.stringify(specifier)});`;
}

/**
 * The bundle's script with the page's module lookup written as in `PAGE_REQUIRE`: esbuild marks
 * `Symbol.for(...)` as pure with a comment, which changes nothing when it runs.
 */
export function withPlainPageRequire(script: string): string {
  return script.replaceAll('globalThis[/* @__PURE__ */ Symbol.for("LGUI_REQUIRE")]', PAGE_REQUIRE);
}

/** Whether `specifier` is one of `packages` or a path inside one (`react/jsx-runtime`). */
export function isPageProvided(specifier: string, packages: readonly string[]): boolean {
  return packages.some((name) => specifier === name || specifier.startsWith(`${name}/`));
}
