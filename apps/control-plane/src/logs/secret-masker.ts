/** What a secret's value is replaced with wherever it would be shown. */
export const SECRET_MASK = '********';

/** Shorter values are too likely to stand in ordinary text to be masked. */
const MIN_SECRET_LENGTH = 4;
/** Shorter pieces of an encoded secret could be anything. */
const MIN_ENCODED_LENGTH = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The part of `base64(prefix + secret + …)` that depends on the secret alone, for each of the
 * three positions the secret can have in a base64 group: an application printing a token inside
 * base64 (a basic-auth header, a data URL) shows one of these.
 */
function base64Cores(secret: string, alphabet: 'base64' | 'base64url'): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString(alphabet);
    const start = Math.ceil((offset * 4) / 3);
    const end = Math.floor(((offset + bytes.length) * 4) / 3);
    const core = encoded.slice(start, end).replace(/=+$/, '');
    if (core.length >= MIN_ENCODED_LENGTH) cores.push(core);
  }
  return cores;
}

/** Every form in which a secret may be printed: as is, in any case, URL- or base64-encoded, in hex. */
function formsOf(secret: string): string[] {
  const forms = new Set<string>([
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    Buffer.from(secret, 'utf8').toString('hex'),
    ...base64Cores(secret, 'base64'),
    ...base64Cores(secret, 'base64url'),
  ]);
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * Masks known secret values in text, in every form `formsOf` knows, letters matched in any case
 * (an application that lowercases or uppercases a token prints it still).
 */
export class SecretMasker {
  private readonly pattern: RegExp | undefined;

  constructor(secretValues: readonly string[]) {
    const forms = secretValues
      .filter((value) => value.length >= MIN_SECRET_LENGTH)
      .flatMap(formsOf)
      // The longest first, so that a longer form is masked whole rather than in part.
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp);
    this.pattern = forms.length > 0 ? new RegExp([...new Set(forms)].join('|'), 'giu') : undefined;
  }

  mask(text: string): string {
    return this.pattern ? text.replace(this.pattern, SECRET_MASK) : text;
  }
}
