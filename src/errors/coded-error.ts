/**
 * The one base of every error class with a stable string code (docs/architecture.md, convention 6), so each
 * module's error class only names its codes: `class BfdError extends CodedError<BfdErrorCode> {}`. A caller
 * switches on `code`, never on the message; `name` is the subclass's own name, so logs and stack traces say which
 * module threw. Pure and dependency-free: any module, pure ones included, may import it.
 */
export class CodedError<C extends string> extends Error {
  constructor(
    readonly code: C,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    // new.target is the class actually constructed ('BfdError', not 'CodedError'); the bundle keeps these names
    // because no two classes in it share one.
    this.name = new.target.name;
  }
}
