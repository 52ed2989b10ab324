/**
 * Types inferred from user schemas, for typed handlers (types only; nothing here runs).
 *
 * - A Standard Schema (zod, valibot, arktype): the handler receives the schema's output type
 *   (`StandardSchemaV1.InferOutput`: what validation produces, defaults applied), and a
 *   structured result is typed as the output schema's input type (what the library accepts).
 * - A plain JSON Schema literal (registration functions take it as a `const` type parameter,
 *   so no `as const` is needed): `type`, `properties` / `required`, `items` / `prefixItems`,
 *   `enum`, `const`, `anyOf` / `oneOf` and `nullable` type lists map to TypeScript types;
 *   anything else (`$ref`, `allOf`, `not`, conditionals) is `unknown`. Object types list the
 *   declared properties only (additional properties are not typed). Nesting is followed to a
 *   fixed depth, past which values are `unknown`.
 * - A schema whose type is not known at compile time (a `JSONObject` variable) gives
 *   `Record<string, unknown>`: never `any`.
 */
import type { StandardSchemaV1 } from '../schema/standard-schema.js';

/** Flattens an intersection for readable hover types. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

type Depth = [never, 0, 1, 2, 3, 4, 5, 6, 7, 8];

/** The TypeScript type of a JSON Schema literal `S` (see the module note). */
export type FromJsonSchema<S, D extends number = 8> = [D] extends [never] ? unknown : FromSchema<S, D>;

type FromSchema<S, D extends number> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly const: infer C }
      ? C
      : S extends { readonly enum: readonly (infer E)[] }
        ? E
        : S extends { readonly anyOf: readonly (infer U)[] }
          ? FromJsonSchema<U, Depth[D]>
          : S extends { readonly oneOf: readonly (infer U)[] }
            ? FromJsonSchema<U, Depth[D]>
            : S extends { readonly type: readonly (infer T)[] }
              ? T extends string
                ? OfType<T, S, D>
                : unknown
              : S extends { readonly type: infer T extends string }
                ? OfType<T, S, D>
                : S extends { readonly properties: object }
                  ? ObjectOf<S, D>
                  : unknown;

type OfType<T extends string, S, D extends number> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? ArrayOf<S, D>
          : T extends 'object'
            ? ObjectOf<S, D>
            : unknown;

type ArrayOf<S, D extends number> = S extends { readonly prefixItems: infer P extends readonly unknown[] }
  ? { -readonly [K in keyof P]: FromJsonSchema<P[K], Depth[D]> }
  : S extends { readonly items: infer I }
    ? FromJsonSchema<I, Depth[D]>[]
    : unknown[];

type RequiredNames<S> = S extends { readonly required: readonly (infer R)[] } ? (R extends string ? R : never) : never;

type ObjectOf<S, D extends number> = S extends { readonly properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P & string as K extends RequiredNames<S> ? K : never]: FromJsonSchema<P[K], Depth[D]> } & {
        -readonly [K in keyof P & string as K extends RequiredNames<S> ? never : K]?: FromJsonSchema<P[K], Depth[D]>;
      }
    >
  : Record<string, unknown>;

/** True when `T` is `any`. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/**
 * The type a schema `S` describes: a Standard Schema's `side` type (`output`: what validation
 * produces; `input`: what it accepts), a JSON Schema literal's type, `Record<string, unknown>`
 * for a schema of unknown shape, `None` without a schema.
 */
type Described<S, Side extends 'input' | 'output', None> =
  IsAny<S> extends true
    ? Record<string, unknown>
    : [S] extends [undefined]
      ? None
      : S extends StandardSchemaV1
        ? Side extends 'output'
          ? StandardSchemaV1.InferOutput<S>
          : StandardSchemaV1.InferInput<S>
        : string extends keyof S
          ? Record<string, unknown>
          : FromJsonSchema<S> extends infer T
            ? unknown extends T
              ? Record<string, unknown>
              : T
            : never;

/**
 * What a typed tool handler receives for the input schema `S`: the Standard Schema's output
 * type, the JSON Schema literal's type, `Record<string, unknown>` for a schema of unknown
 * shape, and `Record<string, never>` without a schema (the tool takes no arguments).
 */
export type ToolArgs<S> = Described<S, 'output', Record<string, never>>;

/**
 * The `structuredContent` a typed tool handler returns for the output schema `S`: the
 * Standard Schema's input type (the library checks and may transform it), the JSON Schema
 * literal's type, else any JSON object.
 */
export type ToolStructured<S> = Described<S, 'input', Record<string, unknown>>;

/** One declared prompt argument, as far as typing needs it. */
export interface PromptArgumentShape {
  readonly name: string;
  readonly required?: boolean;
}

/**
 * The arguments a prompt handler receives for the declared list `A`: a string for each
 * required argument, an optional string for each other one. For a list of unknown names,
 * `Record<string, string | undefined>`.
 */
export type PromptArgs<A extends readonly PromptArgumentShape[] | undefined> = [A] extends [undefined]
  ? Record<string, never>
  : A extends readonly PromptArgumentShape[]
    ? string extends A[number]['name']
      ? Record<string, string | undefined>
      : Simplify<
          { [P in A[number] as P['required'] extends true ? P['name'] : never]: string } & {
            [P in A[number] as P['required'] extends true ? never : P['name']]?: string;
          }
        >
    : never;
