import type { Application, CustomRoutes } from '../application/application.js';

/**
 * The application's own routes (`http.app`) as served now: loaded at start and again after each
 * reload; a string says why they are not served.
 */
export class ServedRoutes {
  current: CustomRoutes | string | undefined;

  constructor(private readonly application: Application) {}

  async load(): Promise<CustomRoutes | string | undefined> {
    this.current = await this.application.customRoutes();
    return this.current;
  }
}
