import { Fragment } from 'react';
import { urlParts } from '../domain/url-parts';

/** A URL that wraps at its separators when its cell is narrow; the whole on hover. */
export function WrappingUrl({ url }: { readonly url: string }) {
  return (
    <code className="wrapping-url" title={url}>
      {urlParts(url).map((part, index) => (
        // The parts are the URL's pieces in order: their place is what they are.
        <Fragment key={index}>
          {index > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </code>
  );
}
