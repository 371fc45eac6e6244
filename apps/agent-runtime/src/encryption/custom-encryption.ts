import { AsyncLocalStorage } from 'node:async_hooks';
import type { KeyWrapper, WrappedKey } from '#libs/encryption';

/** What the handlers are told, as the Python SDK's `EncryptionContext`. */
export interface EncryptionContext {
  /** `thread` (its runs and checkpoints too), `store`, `cron` or `assistant`; null in `context`. */
  readonly model: string | null;
  /** What is encrypted: `data_key`, the key of the model's content; null in `context`. */
  readonly field: string | null;
  /** What `context` derived from the request's user (and `X-Encryption-Context`), kept with the key. */
  readonly metadata: Record<string, unknown>;
}

type Json = Record<string, unknown>;
type BlobHandler = (ctx: EncryptionContext, data: Uint8Array) => Promise<Uint8Array>;
type JsonHandler = (ctx: EncryptionContext, data: Json) => Promise<Json>;
type ContextHandler = (user: unknown, ctx: EncryptionContext) => Promise<Json>;

/**
 * An application's `encryption.path` export, in the shape of the Python SDK's `Encryption`:
 * `encrypt.blob` and `decrypt.blob` (or `encrypt.json` and `decrypt.json`), and optionally
 * `context`, which derives the metadata from the authenticated user.
 */
export interface EncryptionHandlers {
  readonly encrypt: { readonly blob?: BlobHandler; readonly json?: JsonHandler };
  readonly decrypt: { readonly blob?: BlobHandler; readonly json?: JsonHandler };
  readonly context?: ContextHandler;
}

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** The handlers of an export, or why it is not one. */
export function encryptionHandlersOf(exported: unknown): EncryptionHandlers | string {
  const value = exported as Partial<EncryptionHandlers> | null | undefined;
  const encrypt = value?.encrypt;
  const decrypt = value?.decrypt;
  if (typeof encrypt !== 'object' || typeof decrypt !== 'object') {
    return 'is not an encryption object (with encrypt and decrypt handlers)';
  }
  const blob = isFunction(encrypt.blob) && isFunction(decrypt.blob);
  const json = isFunction(encrypt.json) && isFunction(decrypt.json);
  if (!blob && !json) {
    return 'has neither encrypt.blob and decrypt.blob nor encrypt.json and decrypt.json';
  }
  if (value?.context !== undefined && !isFunction(value.context))
    return 'has a context that is not a function';
  return value as EncryptionHandlers;
}

const metadataOfRequest = new AsyncLocalStorage<Json>();

/** Runs `work` with the metadata of the request it serves (what `context` returned). */
export function runWithEncryptionMetadata<T>(metadata: Json, work: () => T): T {
  return metadataOfRequest.run(metadata, work);
}

/** The model of a data key's scope (`thread:<id>`, `store:...`, `cron:<id>`, `assistant:<id>`). */
function modelOf(scope: string): string {
  return scope.slice(0, Math.max(0, scope.indexOf(':'))) || scope;
}

const PREFIX = 'custom.v1.';

interface Stored {
  /** The metadata the key was wrapped with, given again to unwrap it. */
  readonly metadata: Json;
  readonly blob?: string;
  readonly json?: Json;
}

/**
 * Wraps data keys with the application's handlers (envelope encryption): a KMS behind them is
 * called once when a key is made and once when a process first opens it, never per event. The
 * stored text holds the metadata with the wrapped key, as the hosted server keeps it with what
 * it encrypted.
 */
export class CustomKeyWrapper implements KeyWrapper {
  readonly id = 'custom-encryption';
  readonly source = 'encryption.path';

  constructor(private readonly handlers: EncryptionHandlers) {}

  wrap(keyId: string, scope: string, dataKey: Buffer): Promise<string> {
    return this.seal(keyId, this.contextOf(scope, metadataOfRequest.getStore() ?? {}), dataKey);
  }

  async unwrap(wrapped: WrappedKey): Promise<Buffer> {
    const stored = this.storedOf(wrapped);
    return this.open(wrapped, stored, this.contextOf(wrapped.scope, stored.metadata));
  }

  /**
   * The key unwrapped by `decrypt` and wrapped again by `encrypt`, both given the context it was
   * wrapped with (its model, `data_key`, the metadata kept beside it): a KMS's rotation.
   */
  async rewrap(wrapped: WrappedKey): Promise<string> {
    const stored = this.storedOf(wrapped);
    const ctx = this.contextOf(wrapped.scope, stored.metadata);
    return this.seal(wrapped.keyId, ctx, await this.open(wrapped, stored, ctx));
  }

  private async seal(keyId: string, ctx: EncryptionContext, dataKey: Buffer): Promise<string> {
    const { blob, json } = this.handlers.encrypt;
    const stored: Stored = blob
      ? { metadata: ctx.metadata, blob: Buffer.from(await blob(ctx, dataKey)).toString('base64') }
      : {
          metadata: ctx.metadata,
          json: await json?.(ctx, { data_key: dataKey.toString('base64'), key_id: keyId }),
        };
    return PREFIX + Buffer.from(JSON.stringify(stored), 'utf8').toString('base64url');
  }

  private storedOf(wrapped: WrappedKey): Stored {
    if (!wrapped.wrapped.startsWith(PREFIX)) {
      throw new Error(`The data key ${wrapped.keyId} was not wrapped by the encryption handlers`);
    }
    return JSON.parse(
      Buffer.from(wrapped.wrapped.slice(PREFIX.length), 'base64url').toString('utf8'),
    ) as Stored;
  }

  private async open(wrapped: WrappedKey, stored: Stored, ctx: EncryptionContext): Promise<Buffer> {
    if (stored.blob !== undefined && this.handlers.decrypt.blob) {
      return Buffer.from(await this.handlers.decrypt.blob(ctx, Buffer.from(stored.blob, 'base64')));
    }
    if (stored.json !== undefined && this.handlers.decrypt.json) {
      const opened = await this.handlers.decrypt.json(ctx, stored.json);
      if (typeof opened['data_key'] === 'string') return Buffer.from(opened['data_key'], 'base64');
    }
    throw new Error(`The encryption handlers cannot open the data key ${wrapped.keyId}`);
  }

  /** The request's metadata, from `context` given the user and `X-Encryption-Context`. */
  async requestMetadata(user: unknown, header: Json): Promise<Json> {
    const { context } = this.handlers;
    if (!context) return header;
    return context(user, { model: null, field: null, metadata: header });
  }

  private contextOf(scope: string, metadata: Json): EncryptionContext {
    return { model: modelOf(scope), field: 'data_key', metadata };
  }
}
