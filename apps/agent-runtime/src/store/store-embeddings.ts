import { getTextAtPath } from '@langchain/langgraph-checkpoint';
import type { JsonObject } from '#libs/event-store';
import type { StoreIndexSection } from '../graphs/store-config-section.js';
import type { StoreVectors } from './store.events.js';

/** What the store needs of an embeddings model (LangChain's `Embeddings` has both). */
export interface Embedder {
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

/** LangChain packages of the providers `store.index.embed` may name, with their classes. */
const PROVIDERS: Readonly<Record<string, { readonly pkg: string; readonly className: string }>> = {
  openai: { pkg: '@langchain/openai', className: 'OpenAIEmbeddings' },
  azure_openai: { pkg: '@langchain/openai', className: 'AzureOpenAIEmbeddings' },
  cohere: { pkg: '@langchain/cohere', className: 'CohereEmbeddings' },
  mistralai: { pkg: '@langchain/mistralai', className: 'MistralAIEmbeddings' },
  google_genai: { pkg: '@langchain/google-genai', className: 'GoogleGenerativeAIEmbeddings' },
  google_vertexai: { pkg: '@langchain/google-vertexai', className: 'VertexAIEmbeddings' },
  ollama: { pkg: '@langchain/ollama', className: 'OllamaEmbeddings' },
  bedrock: { pkg: '@langchain/aws', className: 'BedrockEmbeddings' },
};

/** Imports a module of the application: a package by name, or `<file>` by path. */
export type ApplicationImport = (specifier: string, exportName: string) => Promise<unknown>;

const hasMethod = (value: unknown, name: string): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Record<string, unknown>)[name] === 'function';

/**
 * The embedder `store.index.embed` names: a provider's LangChain class from the application's
 * dependencies, or the application's own export, either an `Embeddings` object or a function
 * from texts to vectors.
 */
export async function loadEmbedder(
  index: StoreIndexSection,
  importFromApplication: ApplicationImport,
): Promise<Embedder> {
  const { embed } = index;
  if (embed.kind === 'provider') {
    const provider = PROVIDERS[embed.provider];
    if (!provider) {
      throw new Error(
        `store.index.embed: unknown provider "${embed.provider}" (known: ${Object.keys(PROVIDERS).join(', ')}; or name "<file>:<function>")`,
      );
    }
    const EmbeddingsClass = (await importFromApplication(provider.pkg, provider.className).catch(
      (error: unknown) => {
        throw new Error(
          `store.index.embed: ${embed.provider} needs ${provider.pkg} among the application's dependencies (${error instanceof Error ? error.message : String(error)})`,
        );
      },
    )) as new (fields: Record<string, unknown>) => Embedder;
    return new EmbeddingsClass({ model: embed.model });
  }
  const exported = await importFromApplication(embed.file, embed.exportName);
  if (hasMethod(exported, 'embedDocuments') && hasMethod(exported, 'embedQuery')) {
    return exported as Embedder;
  }
  if (typeof exported === 'function') {
    const embedTexts = exported as (texts: string[]) => Promise<number[][]> | number[][];
    return {
      embedDocuments: async (texts) => embedTexts(texts),
      embedQuery: async (text) => {
        const [vector] = await embedTexts([text]);
        if (!vector) throw new Error('the embedding function returned no vector');
        return vector;
      },
    };
  }
  throw new Error(
    `store.index.embed: export "${embed.exportName}" of ${embed.file} is neither a function from texts to vectors nor an Embeddings object`,
  );
}

/** Scaled to length 1, so that cosine similarity is a dot product. */
export function unitVector(vector: readonly number[], dims: number): number[] {
  if (!Array.isArray(vector) || vector.length !== dims) {
    throw new Error(
      `the embedding has ${Array.isArray(vector) ? vector.length : 'no'} dimensions, store.index.dims says ${dims}`,
    );
  }
  let sum = 0;
  for (const x of vector) {
    if (typeof x !== 'number' || !Number.isFinite(x))
      throw new Error('the embedding holds a non-number');
    sum += x * x;
  }
  const norm = Math.sqrt(sum);
  return norm === 0 ? vector.map(() => 0) : vector.map((x) => x / norm);
}

/** The texts of a value to embed, by path: `fields` (or the item's own `index`), as LangGraph reads them. */
export function textsToEmbed(value: JsonObject, fields: readonly string[]): Map<string, string> {
  const texts = new Map<string, string>();
  for (const field of fields) {
    const found = getTextAtPath(value, field);
    if (found.length === 1) texts.set(field, String(found[0]));
    else found.forEach((text, i) => texts.set(`${field}.${i}`, text));
  }
  return texts;
}

/** Embeds many items' texts in one call; each item gets its vectors by path. */
export async function embedItems(
  embedder: Embedder,
  dims: number,
  items: readonly Map<string, string>[],
): Promise<StoreVectors[]> {
  const unique = [...new Set(items.flatMap((texts) => [...texts.values()]))];
  const vectors = unique.length > 0 ? await embedder.embedDocuments(unique) : [];
  if (vectors.length !== unique.length) {
    throw new Error(`the embedder returned ${vectors.length} vectors for ${unique.length} texts`);
  }
  const byText = new Map(unique.map((text, i) => [text, unitVector(vectors[i] ?? [], dims)]));
  return items.map((texts) =>
    Object.fromEntries([...texts].map(([path, text]) => [path, byText.get(text) ?? []])),
  );
}
