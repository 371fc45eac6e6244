export interface ValidationIssue {
  readonly loc: (string | number)[];
  readonly msg: string;
  readonly type: string;
}

/** A request that breaks the schema: answered 422 with `detail: [{loc, msg, type}]`. */
export class ValidationFailedError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '));
  }
}
