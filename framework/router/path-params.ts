/**
 * Path parameters typed from the path literal, as Hono's `ParamKeys`:
 * `PathParams<'/posts/{id}/{slug?}'>` is `{ id: string; slug?: string }`.
 * A path that is not a literal (`string`) gives `Record<string, string>`.
 */

type Segments<Path extends string> = Path extends `${infer Head}/${infer Tail}` ? Head | Segments<Tail> : Path

type RequiredName<Segment> = Segment extends `{${infer Name}}` ? (Name extends `${string}?` ? never : Name) : never
type OptionalName<Segment> = Segment extends `{${infer Name}?}` ? Name : never

type Simplify<T> = { [K in keyof T]: T[K] } & {}

export type PathParams<Path extends string> = string extends Path
  ? Record<string, string>
  : Simplify<{ [K in RequiredName<Segments<Path>>]: string } & { [K in OptionalName<Segments<Path>>]?: string }>
