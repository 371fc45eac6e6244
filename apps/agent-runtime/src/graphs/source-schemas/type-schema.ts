import ts from 'typescript';

export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** How deep an anonymous object type is written out before it is left as any value. */
const MAX_INLINE_DEPTH = 8;

type Literal = string | number | boolean;

export interface TypeSchemaOptions {
  /** Union members to leave out of every schema (e.g. LangGraph's `Overwrite` wrapper). */
  readonly omitMember?: (type: ts.Type) => boolean;
}

/**
 * Writes TypeScript types as JSON schemas (draft 07). Classes and interfaces become
 * `definitions` referred to by `$ref`, named as the compiler prints them; an abstract class is
 * the `oneOf` of the classes of the program that extend it; methods and private members are
 * left out, as are values that JSON cannot carry (functions, symbols, undefined).
 */
export class TypeSchemaWriter {
  private readonly namesByType = new Map<ts.Type, string>();
  private readonly typesByName = new Map<string, ts.Type>();
  private subclassIndex: Map<string, ts.Type[]> | undefined;
  private definitions = new Map<string, JsonSchema>();

  constructor(
    private readonly program: ts.Program,
    private readonly checker: ts.TypeChecker,
    private readonly options: TypeSchemaOptions = {},
  ) {}

  /** A whole schema document for `type`: its definitions and `$schema`; null for no value. */
  document(type: ts.Type): JsonSchema | null {
    this.definitions = new Map();
    const schema = this.schemaOf(type, 0);
    if (schema === undefined) return null;
    const document: JsonSchema = { ...schema };
    if (this.definitions.size > 0) document.definitions = Object.fromEntries(this.definitions);
    document.$schema = JSON_SCHEMA_DRAFT_07;
    return document;
  }

  /** An object schema of named properties, each optional unless `required` says so. */
  objectDocument(
    properties: readonly { name: string; type: ts.Type; description?: string }[],
    required: boolean,
  ): JsonSchema {
    this.definitions = new Map();
    const written: Record<string, JsonSchema> = {};
    for (const property of properties) {
      const schema = this.schemaOf(property.type, 1);
      if (schema === undefined) continue;
      written[property.name] = property.description
        ? { ...schema, description: property.description }
        : schema;
    }
    const document: JsonSchema = { type: 'object', properties: written };
    if (required && Object.keys(written).length > 0) document.required = Object.keys(written);
    if (this.definitions.size > 0) document.definitions = Object.fromEntries(this.definitions);
    document.$schema = JSON_SCHEMA_DRAFT_07;
    return document;
  }

  /** The schema of a value of `type`; undefined when JSON cannot carry such a value. */
  private schemaOf(type: ts.Type, depth: number): JsonSchema | undefined {
    const flags = type.flags;
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (flags & (ts.TypeFlags.Never | ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return undefined;
    if (flags & (ts.TypeFlags.ESSymbolLike | ts.TypeFlags.UniqueESSymbol)) return undefined;
    if (flags & ts.TypeFlags.Null) return { type: 'null' };
    if (type.isUnion()) return this.unionSchema(type.types, depth);
    const literal = literalOf(type);
    if (literal !== undefined) return { type: typeof literal, const: literal };
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) {
      return { type: 'string' };
    }
    if (flags & ts.TypeFlags.Number) return { type: 'number' };
    if (flags & ts.TypeFlags.BigInt) return { type: 'integer' };
    if (flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (flags & ts.TypeFlags.NonPrimitive) return { type: 'object' };
    if (type.isIntersection()) return this.intersectionSchema(type, depth);
    if (flags & ts.TypeFlags.Object) return this.objectSchema(type as ts.ObjectType, depth);
    if (flags & ts.TypeFlags.TypeParameter) {
      const constraint = this.checker.getBaseConstraintOfType(type);
      return constraint && constraint !== type ? this.schemaOf(constraint, depth) : {};
    }
    return {};
  }

  private unionSchema(members: readonly ts.Type[], depth: number): JsonSchema | undefined {
    const literals: Literal[] = [];
    const simpleTypes: string[] = [];
    const others: JsonSchema[] = [];
    for (const member of members) {
      if (this.options.omitMember?.(member)) continue;
      const literal = literalOf(member);
      if (literal !== undefined) {
        literals.push(literal);
        continue;
      }
      const schema = this.schemaOf(member, depth);
      if (schema === undefined) continue;
      const keys = Object.keys(schema);
      if (keys.length === 1 && typeof schema.type === 'string') {
        if (!simpleTypes.includes(schema.type)) simpleTypes.push(schema.type);
      } else {
        others.push(schema);
      }
    }
    if (literals.includes(true) && literals.includes(false)) {
      literals.splice(
        0,
        literals.length,
        ...literals.filter((value) => typeof value !== 'boolean'),
      );
      if (!simpleTypes.includes('boolean')) simpleTypes.push('boolean');
    }
    const parts: JsonSchema[] = [];
    if (literals.length > 0) parts.push(enumSchema(literals));
    if (simpleTypes.length > 0) {
      // `null` last, as a type reads: `string | null`.
      simpleTypes.sort((a, b) => Number(a === 'null') - Number(b === 'null'));
      parts.push({ type: simpleTypes.length === 1 ? simpleTypes[0] : simpleTypes });
    }
    parts.push(...others);
    if (parts.length === 0) return undefined;
    return parts.length === 1 ? parts[0] : { anyOf: parts };
  }

  private intersectionSchema(type: ts.IntersectionType, depth: number): JsonSchema | undefined {
    if (type.types.every((member) => member.flags & ts.TypeFlags.Object)) {
      return this.inlineObject(type, depth);
    }
    // `string & {}` (a string that keeps editor hints for literals) is a string.
    const members = type.types.filter((member) => !isEmptyObjectType(member));
    const parts = members
      .map((member) => this.schemaOf(member, depth))
      .filter((schema): schema is JsonSchema => schema !== undefined);
    return parts.length === 1 ? parts[0] : { allOf: parts };
  }

  private objectSchema(type: ts.ObjectType, depth: number): JsonSchema | undefined {
    const checker = this.checker;
    if (checker.isTupleType(type)) {
      const target = (type as ts.TypeReference).target as ts.TupleType;
      const items = checker
        .getTypeArguments(type as ts.TypeReference)
        .map((element) => this.schemaOf(element, depth + 1) ?? {});
      const schema: JsonSchema = { type: 'array', items, minItems: target.minLength };
      if (!(target.combinedFlags & ts.ElementFlags.Variable)) schema.maxItems = items.length;
      return schema;
    }
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference);
      return { type: 'array', items: (element && this.schemaOf(element, depth + 1)) ?? {} };
    }
    if (isFunctionOnly(type)) return undefined;
    const symbol = type.getSymbol();
    if (symbol?.getName() === 'Date' && isFromDefaultLibrary(this.program, symbol)) {
      return { type: 'string', format: 'date-time' };
    }
    if (symbol && symbol.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)) {
      return { $ref: `#/definitions/${this.define(type)}` };
    }
    return this.inlineObject(type, depth);
  }

  /** Writes the definition of a class or interface once, and gives its name. */
  private define(type: ts.ObjectType): string {
    const name = this.nameOf(type);
    if (this.definitions.has(name)) return name;
    this.definitions.set(name, {});
    this.definitions.set(name, this.namedBody(type));
    return name;
  }

  private namedBody(type: ts.ObjectType): JsonSchema {
    const symbol = type.getSymbol();
    const description = symbol ? this.descriptionOf(symbol) : undefined;
    const subclasses = isAbstractClass(symbol) ? this.subclassesOf(type) : [];
    if (subclasses.length > 0) {
      const oneOf = subclasses.map((subclass) => ({
        $ref: `#/definitions/${this.define(subclass as ts.ObjectType)}`,
      }));
      return description ? { description, oneOf } : { oneOf };
    }
    const body = this.inlineObject(type, 0);
    return description ? { description, ...body } : body;
  }

  private inlineObject(type: ts.Type, depth: number): JsonSchema {
    if (depth > MAX_INLINE_DEPTH) return {};
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const property of this.checker.getPropertiesOfType(type)) {
      if (!isDataProperty(property)) continue;
      const propertyType = this.checker.getTypeOfSymbol(property);
      const schema = this.schemaOf(propertyType, depth + 1);
      if (schema === undefined) continue;
      const description = this.descriptionOf(property);
      properties[property.getName()] = description ? { ...schema, description } : schema;
      const optional =
        property.flags & ts.SymbolFlags.Optional ||
        (propertyType.isUnion() &&
          propertyType.types.some((member) => member.flags & ts.TypeFlags.Undefined));
      if (!optional) required.push(property.getName());
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    const index = this.checker
      .getIndexInfosOfType(type)
      .find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (index) schema.additionalProperties = this.schemaOf(index.type, depth + 1) ?? {};
    return schema;
  }

  private descriptionOf(symbol: ts.Symbol): string | undefined {
    const text = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
    return text || undefined;
  }

  /**
   * The definition name of a named type, as the compiler prints it without spaces or module
   * paths (`BaseMessage<MessageStructure<MessageToolSet>,MessageType>`); another type printed
   * the same gets a numbered name.
   */
  private nameOf(type: ts.Type): string {
    const known = this.namesByType.get(type);
    if (known !== undefined) return known;
    const printed = printedName(this.checker, type);
    let name = printed;
    for (let suffix = 1; this.typesByName.has(name); suffix++) name = `${printed}_${suffix}`;
    this.namesByType.set(type, name);
    this.typesByName.set(name, type);
    return name;
  }

  /** The classes of the program declared as extending `type` (with the same type arguments). */
  private subclassesOf(type: ts.Type): ts.Type[] {
    this.subclassIndex ??= indexSubclasses(this.program, this.checker);
    return this.subclassIndex.get(printedName(this.checker, type)) ?? [];
  }
}

function literalOf(type: ts.Type): Literal | undefined {
  if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
  if (type.flags & ts.TypeFlags.BooleanLiteral) {
    return (type as ts.Type & { intrinsicName?: string }).intrinsicName === 'true';
  }
  return undefined;
}

function enumSchema(values: Literal[]): JsonSchema {
  const distinct = [...new Set(values)];
  const kinds = new Set(distinct.map((value) => typeof value));
  const schema: JsonSchema =
    distinct.length === 1 ? { const: distinct[0] } : { enum: distinct.sort(compareLiterals) };
  const [kind] = kinds;
  return kinds.size === 1 && kind !== undefined ? { type: kind, ...schema } : schema;
}

function compareLiterals(a: Literal, b: Literal): number {
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

function isEmptyObjectType(type: ts.Type): boolean {
  return (
    (type.flags & ts.TypeFlags.Object) !== 0 &&
    type.getProperties().length === 0 &&
    type.getCallSignatures().length === 0 &&
    type.getConstructSignatures().length === 0
  );
}

function isFunctionOnly(type: ts.Type): boolean {
  return type.getCallSignatures().length > 0 && type.getProperties().length === 0;
}

function isDataProperty(property: ts.Symbol): boolean {
  if (property.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.Accessor)) return false;
  const name = property.getName();
  if (name.startsWith('__@') || name.startsWith('#')) return false;
  return !(property.declarations ?? []).some(
    (declaration) =>
      ts.getCombinedModifierFlags(declaration) &
      (ts.ModifierFlags.Private | ts.ModifierFlags.Protected),
  );
}

function isAbstractClass(symbol: ts.Symbol | undefined): boolean {
  return (symbol?.declarations ?? []).some(
    (declaration) =>
      ts.isClassDeclaration(declaration) &&
      ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Abstract,
  );
}

function isFromDefaultLibrary(program: ts.Program, symbol: ts.Symbol): boolean {
  return (symbol.declarations ?? []).some((declaration) =>
    program.isSourceFileDefaultLibrary(declaration.getSourceFile()),
  );
}

function printedName(checker: ts.TypeChecker, type: ts.Type): string {
  return checker
    .typeToString(
      type,
      undefined,
      ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseFullyQualifiedType,
    )
    .replace(/import\("[^"]*"\)\.|"[^"]*"\.|\s/g, '');
}

/** Every class declared in the program, by the printed name of each class it extends. */
function indexSubclasses(program: ts.Program, checker: ts.TypeChecker): Map<string, ts.Type[]> {
  const index = new Map<string, ts.Type[]>();
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node)) {
      const type = checker.getTypeAtLocation(node);
      for (const base of checker.getBaseTypes(type as ts.InterfaceType)) {
        const name = printedName(checker, base);
        index.set(name, [...(index.get(name) ?? []), type]);
      }
      return;
    }
    if (ts.isModuleDeclaration(node) || ts.isModuleBlock(node) || ts.isSourceFile(node)) {
      ts.forEachChild(node, visit);
    }
  };
  for (const sourceFile of program.getSourceFiles()) visit(sourceFile);
  return index;
}
