import { envBoolean } from '#libs/config';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { metricsRegistry } from './registry.js';

export const METRICS_PATH = '/metrics';

/** `/metrics` is served without the API key only when the operator says so. */
export function metricsPublicPaths(env: NodeJS.ProcessEnv): string[] {
  return envBoolean('BERTH_METRICS_PUBLIC', env.BERTH_METRICS_PUBLIC) ? [METRICS_PATH] : [];
}

@Controller()
export class MetricsController {
  @ApiResponse({
    status: 200,
    description: 'Metrics in the Prometheus text format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @Get('metrics')
  @Header('content-type', metricsRegistry.contentType)
  metrics(): Promise<string> {
    return metricsRegistry.metrics();
  }
}
