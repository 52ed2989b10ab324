/**
 * The Standard Schema and Standard JSON Schema interfaces (v1), as published at
 * https://standardschema.dev, declared structurally: mcpkit never imports a schema library,
 * and any value of this shape (zod 4, valibot, arktype, ...) is accepted. Types only; a leaf
 * module, so every schema module can name them without importing the adapter code.
 */
/** The Standard Schema interface (v1), as published at https://standardschema.dev. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** Types belonging to {@link StandardSchemaV1}. */
export declare namespace StandardSchemaV1 {
  /** The `~standard` member of a Standard Schema. */
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** Options a caller may pass to `validate`. */
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  /** The outcome of `validate`: a value, or issues. */
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One problem found by `validate`. */
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  /** Type carriers for inference; never present at runtime. */
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The input type of a Standard Schema. */
  type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['input'];
  /** The output type of a Standard Schema. */
  type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema['~standard']['types']>['output'];
}

/** The Standard JSON Schema interface (v1): a schema that can describe itself as JSON Schema. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardJSONSchemaV1.Props<Input, Output>;
}

/** Types belonging to {@link StandardJSONSchemaV1}. */
export declare namespace StandardJSONSchemaV1 {
  /** The `~standard` member of a Standard JSON Schema. */
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly jsonSchema: Converter;
    readonly types?: StandardSchemaV1.Types<Input, Output> | undefined;
  }
  /** Produces the JSON Schema of the accepted input or of the produced output. May throw. */
  interface Converter {
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
  /** The JSON Schema dialect asked for. */
  type Target = 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string);
  interface Options {
    readonly target: Target;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}
