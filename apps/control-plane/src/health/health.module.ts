import { Module } from '@nestjs/common';
import { MetricsController } from '#libs/metrics';
import { HealthController } from './health.controller.js';

/** `/ok` and `/metrics`. */
@Module({ controllers: [HealthController, MetricsController] })
export class HealthModule {}
