import { isURL, ValidateBy, type ValidationOptions } from 'class-validator';

/** A webhook on the server's own routes (`/custom/webhook`), called in process. */
export function isRelativeWebhook(webhook: string): boolean {
  return webhook.startsWith('/') && !webhook.startsWith('//');
}

function isWebhookTarget(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (isRelativeWebhook(value)) return true;
  return isURL(value, { require_tld: false, require_protocol: true, protocols: ['http', 'https'] });
}

/** A run's or a cron's `webhook`: an http(s) URL, or a path of this server's (the application's route). */
export function IsWebhookTarget(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookTarget',
      validator: {
        validate: isWebhookTarget,
        defaultMessage: () =>
          `$property must be an http(s) URL, or a path of this server's starting with "/"`,
      },
    },
    options,
  );
}
