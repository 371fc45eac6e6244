/** The longest a thread can be left alone before it is deleted: ten years of minutes. */
export const MAX_TTL_MINUTES = 10 * 365 * 24 * 60;
