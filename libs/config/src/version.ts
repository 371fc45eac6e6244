/** Berth's version, as /info and the OpenAPI documents show it. */
export const BERTH_VERSION = '0.1.0';
