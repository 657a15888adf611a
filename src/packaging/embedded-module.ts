/**
 * Imports an ES module whose text is an asset of the one-file build (dist/mlb). The executable's main script is
 * CommonJS and has no module loader of its own for import(), and the module (the live view: Ink, React and
 * yoga, whose WebAssembly loads with a top-level await) cannot be made CommonJS. So its text is imported as a
 * data: URL through a script compiled with Node's default loader (vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER).
 * A data: module can import only Node's built-in modules, which is all the bundled view does.
 */
import vm from 'node:vm';
import { embeddedText } from './single-executable';

/** The experimental-feature warning Node prints on first use of the default-loader constant (Node 20 and 22). */
const LOADER_WARNING = 'vm.USE_MAIN_CONTEXT_DEFAULT_LOADER';

export async function importEmbeddedModule<T>(name: string): Promise<T> {
  const text = embeddedText(name);
  if (text === undefined) {
    throw Object.assign(new Error(`${name} is not embedded in this executable`), { code: 'ERR_MODULE_NOT_FOUND' });
  }
  const url = `data:text/javascript;base64,${Buffer.from(text).toString('base64')}`;
  // Node warns when the script is made on one version and when its import() runs on another: both are covered.
  const imported = withoutLoaderWarning(() =>
    new vm.Script(`import(${JSON.stringify(url)})`, {
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    }).runInThisContext(),
  ) as Promise<T>;
  return await imported;
}

/** The warning names a Node internal the user did not choose, and would print over the live view. */
function withoutLoaderWarning<T>(use: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.includes(LOADER_WARNING)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return use();
  } finally {
    process.emitWarning = emitWarning;
  }
}
