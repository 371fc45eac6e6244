/** Whose resources: an assistant's or a thread's. */
export type ResourceOwner = { readonly assistantId: string } | { readonly threadId: string };

/**
 * What belongs to an assistant or a thread and goes when it is deleted through the API (its
 * crons). Declared here and provided by crons/, so that threads/ and assistants/ need not know it.
 */
export abstract class OwnedResources {
  abstract deleteOf(owner: ResourceOwner, now: string): Promise<unknown>;
}
