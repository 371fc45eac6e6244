import { extname } from 'node:path';
import { bundleGlobalOf } from './ui-entry.js';

const LOCAL_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * Where the page fetches an agent's files from: the host the request came to, over plain HTTP
 * when it is this machine, else protocol-relative (the page's own scheme, https behind TLS).
 */
export function assetOrigin(host: string): string {
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0];
  return LOCAL_HOSTS.includes(name ?? '') ? `http://${host}` : `//${host}`;
}

/** `value` inside an attribute quoted with `quote`: only `&` and that quote need escaping there. */
const inAttribute = (value: string, quote: '"' | "'"): string =>
  value.replaceAll('&', '&amp;').replaceAll(quote, quote === '"' ? '&quot;' : '&#39;');

export interface ComponentMarkupRequest {
  readonly agent: string;
  /** The component's name (`message.name` of the UI message). */
  readonly name: string;
  /** The `Host` the request came to. */
  readonly host: string;
  /** The names of the agent's bundle files. */
  readonly files: readonly string[];
}

/**
 * The HTML that `LoadExternalComponent` puts in its shadow root: the agent's styles, then its
 * script, whose `onload` renders the named component in the element `{{shadowRootId}}` (the
 * loader puts the element's id in place of that placeholder).
 */
export function componentMarkup({ agent, name, host, files }: ComponentMarkupRequest): string {
  const base = `${assetOrigin(host)}/ui/${encodeURIComponent(agent)}`;
  const url = (file: string): string => inAttribute(`${base}/${encodeURIComponent(file)}`, '"');
  const tags = files
    .filter((file) => extname(file) === '.css')
    .map((file) => `<link rel="stylesheet" href="${url(file)}" />`);
  const script = files.find((file) => extname(file) === '.js');
  if (script !== undefined) {
    const onload = `${bundleGlobalOf(agent)}.render(${JSON.stringify(name)}, "{{shadowRootId}}")`;
    tags.push(`<script src="${url(script)}" onload='${inAttribute(onload, "'")}'></script>`);
  }
  return tags.join('\n');
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

/** The content type a bundle file is served with. */
export function contentTypeOf(file: string): string {
  return CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}
