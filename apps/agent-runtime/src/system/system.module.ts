import { Module } from '@nestjs/common';
import { MetricsController } from '#libs/metrics';
import { SystemController } from './system.controller.js';

/** `/ok`, `/info` and `/metrics`. */
@Module({ controllers: [SystemController, MetricsController] })
export class SystemModule {}
