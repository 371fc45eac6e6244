import { CronExpressionParser } from 'cron-parser';

/** The macros of classic cron, each a 5-field expression. */
const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A schedule that cannot be read; the message says why. */
export class CronScheduleError extends Error {}

/**
 * A standard 5-field cron expression (minute, hour, day of month, month, day of week) in a time
 * zone (UTC unless named): pure over the instants it is given.
 */
export class CronSchedule {
  private constructor(
    private readonly expression: string,
    readonly timezone: string,
  ) {}

  static parse(schedule: string, timezone: string | null | undefined): CronSchedule {
    const zone = timezone ?? 'UTC';
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone });
    } catch {
      throw new CronScheduleError(
        `Unknown time zone "${zone}": use an IANA name such as Europe/Oslo`,
      );
    }
    const trimmed = schedule.trim();
    const expression = MACROS[trimmed.toLowerCase()] ?? trimmed;
    const fields = expression.split(/\s+/);
    if (fields.length !== 5) {
      throw new CronScheduleError(
        `"${schedule}" has ${fields.length} fields: a schedule is 5 (minute hour day-of-month month day-of-week), or @hourly, @daily, @weekly, @monthly, @yearly`,
      );
    }
    const parsed = new CronSchedule(expression, zone);
    try {
      parsed.tickAfter(new Date());
    } catch (error) {
      throw new CronScheduleError(
        `"${schedule}" is not a cron expression: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return parsed;
  }

  /** The first tick strictly after `instant`. */
  tickAfter(instant: Date): Date {
    return this.iterator(instant).next().toDate();
  }

  /** The last tick at or before `instant`, or undefined when there is none in the past. */
  tickAtOrBefore(instant: Date): Date | undefined {
    const justAfter = new Date(instant.getTime() + 1);
    const iterator = this.iterator(justAfter);
    return iterator.hasPrev() ? iterator.prev().toDate() : undefined;
  }

  private iterator(from: Date) {
    return CronExpressionParser.parse(this.expression, {
      currentDate: from,
      tz: this.timezone,
      strict: false,
    });
  }
}
