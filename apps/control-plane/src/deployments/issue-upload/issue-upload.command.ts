import { Command } from '@nestjs/cqrs';
import type { Caller } from '../../tenancy/tenant-directory.js';
import type { IssuedUpload } from '../../uploads/upload-store.js';

/** An upload URL for a deployment's source tarball, valid for a while. */
export class IssueUpload extends Command<IssuedUpload> {
  constructor(
    readonly caller: Caller,
    readonly deploymentId: string,
    /** The base URL clients reached this server at. */
    readonly baseUrl: string,
  ) {
    super();
  }
}
