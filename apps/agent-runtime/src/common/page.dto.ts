import { MAX_PAGE_OFFSET, OptionalInteger } from '#libs/http';

/** `limit` and `offset` of a search: the page every list route of the runtime takes. */
export class PageDto {
  @OptionalInteger(0, 1000, { fromText: true })
  limit?: number;

  @OptionalInteger(0, MAX_PAGE_OFFSET, { fromText: true })
  offset?: number;
}
