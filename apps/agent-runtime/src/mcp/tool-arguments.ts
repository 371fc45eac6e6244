import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { JsonSchemaType } from '@modelcontextprotocol/sdk/validation';
import { ownArgumentsSchema, type ToolInputSchema } from './tool-input-schema.js';

const validator = new AjvJsonSchemaValidator();

function check(schema: ToolInputSchema, args: Record<string, unknown>): string | undefined {
  // The graph's schema is checked as draft-07 whatever it declares.
  const readable: JsonSchemaType = { ...schema };
  delete readable.$schema;
  const result = validator.getValidator(readable)(args);
  return result.valid ? undefined : result.errorMessage;
}

/**
 * What is wrong with a tool's arguments against its input schema, or undefined. A schema the
 * validator cannot read is left to the graph; `thread_id` is checked all the same. A call that
 * resumes a run takes no input: it needs the run's thread.
 */
export function argumentsProblem(
  schema: ToolInputSchema,
  args: Record<string, unknown>,
): string | undefined {
  if (args.resume !== undefined) {
    return args.thread_id === undefined
      ? 'resume needs the thread_id of the run that stopped at an interrupt'
      : check(ownArgumentsSchema(), args);
  }
  try {
    return check(schema, args);
  } catch {
    return check(ownArgumentsSchema(), args);
  }
}
