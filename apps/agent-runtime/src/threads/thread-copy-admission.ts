import type { JsonObject } from '#libs/event-store';
import type { AuthContext } from '../auth/custom-auth.js';

/** The id and the metadata of a copy, as the application's `threads:create` handler saw them. */
export interface AdmittedCopy {
  readonly threadId: string;
  readonly metadata: JsonObject;
}

/**
 * Whether a caller may copy a thread: read the source, and create a thread. Declared here and
 * provided by authorization/, so that threads/ need not know the application's auth.
 */
export abstract class ThreadCopyAdmission {
  /** Throws the refusal; undefined when nobody is asked (the platform, or no `auth.path`). */
  abstract admit(who: AuthContext | undefined, sourceId: string): Promise<AdmittedCopy | undefined>;
}
