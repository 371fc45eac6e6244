/** A day: a run longer than that is a job for something else. */
export const MAX_RUN_TIMEOUT_SECONDS = 24 * 60 * 60;
