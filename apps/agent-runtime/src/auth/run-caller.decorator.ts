import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { configurableHeadersOf } from './configurable-headers.js';
import { runCallerOf } from './run-caller.js';

/** Who a run this request makes is for, and the request headers its graph reads. */
export const RunCallerOf = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const request = context.switchToHttp().getRequest<FastifyRequest>();
  return runCallerOf(request.berthAuth, configurableHeadersOf(request.headers));
});
