/**
 * Printing a value as JSON or YAML (-o json|yaml, --json). Apart from output-format.ts, which every command with
 * -o reads for its options: this loads the yaml package, and `mlb status --once` prints text without it.
 */
import { stringify as yamlText } from 'yaml';

/**
 * `value` as indented JSON or as YAML, ending with a newline. The YAML is made from the JSON (through `replacer`),
 * so both forms carry exactly the same fields and values (bigints as the JSON replacer spells them).
 */
function structuredText(value: unknown, format: 'json' | 'yaml', replacer?: (key: string, value: unknown) => unknown): string {
  const json = JSON.stringify(value, replacer, 2);
  return format === 'json' ? `${json}\n` : yamlText(JSON.parse(json) as unknown);
}

export function printStructured(value: unknown, format: 'json' | 'yaml', replacer?: (key: string, value: unknown) => unknown): void {
  process.stdout.write(structuredText(value, format, replacer));
}
