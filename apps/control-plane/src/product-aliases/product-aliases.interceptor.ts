import {
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { ValidationFailedError } from '#libs/http';
import { canonicalizeAliases } from './product-aliases.js';

/** Rewrites product-named aliases in a deployment or listener body before validation sees it. */
@Injectable()
export class ProductAliasesInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { body, conflicts } = canonicalizeAliases(request.body);
    if (conflicts.length > 0) throw new ValidationFailedError(conflicts);
    request.body = body;
    return next.handle();
  }
}
