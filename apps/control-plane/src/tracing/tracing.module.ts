import { Module } from '@nestjs/common';
import { TracingController } from './tracing.controller.js';
import { TracingService } from './tracing.service.js';

/** `/v1/tracing-projects`: the runs each deployment's runtime reports. */
@Module({
  controllers: [TracingController],
  providers: [TracingService],
})
export class TracingModule {}
