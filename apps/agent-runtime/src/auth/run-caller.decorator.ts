import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { runCallerOf } from './run-caller.js';

/** The user of the application's auth a run this request makes is for (none for the platform). */
export const RunCallerOf = createParamDecorator((_data: unknown, context: ExecutionContext) =>
  runCallerOf(context.switchToHttp().getRequest<FastifyRequest>().berthAuth),
);
