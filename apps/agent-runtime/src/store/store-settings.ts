import type { StoreSection, StoreTtlSection } from '../graphs/store-config-section.js';
import { loadEmbedder, type ApplicationImport, type Embedder } from './store-embeddings.js';

/** The store's settings from `langgraph.json`'s `store` section, with the embedder it names. */
export class StoreSettings {
  private constructor(
    readonly ttl: StoreTtlSection,
    /** Set when `store.index` is: items are embedded on put, and `query` ranks by similarity. */
    readonly index: { readonly dims: number; readonly fields: readonly string[] } | undefined,
    /** Loaded once; a failure is the reason semantic operations give. */
    readonly embedder: Promise<Embedder> | undefined,
    readonly sweepIntervalMs: number,
  ) {
    embedder?.catch(() => undefined);
  }

  static from(
    section: StoreSection | undefined,
    importFromApplication: ApplicationImport,
    defaultSweepSeconds: number,
  ): StoreSettings {
    const index = section?.index;
    const sweepMinutes = section?.ttl.sweepIntervalMinutes;
    return new StoreSettings(
      section?.ttl ?? { refreshOnRead: true },
      index ? { dims: index.dims, fields: index.fields } : undefined,
      index ? loadEmbedder(index, importFromApplication) : undefined,
      sweepMinutes === undefined ? defaultSweepSeconds * 1000 : sweepMinutes * 60_000,
    );
  }
}
