// Flags with environment fallbacks: `--duration 5` or `BENCH_DURATION=5`; `--quick` picks short defaults;
// `--help` prints the script's opening comment.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface NumberFlag {
  env: string;
  default: number;
  /** Used instead of `default` with --quick. */
  quick?: number;
}

interface ListFlag {
  env: string;
  default: number[];
  quick?: number[];
}

export function readFlags<N extends Record<string, NumberFlag>, L extends Record<string, ListFlag>>(
  numbersSpec: N,
  listsSpec: L = {} as L,
  booleanNames: string[] = [],
  /** Flags taking one word, e.g. `--only polled`; undefined when not given. */
  stringNames: string[] = [],
) {
  helpIfAsked();
  const { values: parsed } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      ...Object.fromEntries(booleanNames.map((name) => [name, { type: 'boolean' as const, default: false }])),
      ...Object.fromEntries(stringNames.map((name) => [name, { type: 'string' as const }])),
      ...Object.fromEntries([...Object.keys(numbersSpec), ...Object.keys(listsSpec)].map((name) => [name, { type: 'string' as const }])),
    },
  });
  const values = parsed as Record<string, string | boolean | undefined>;
  const quick = values.quick === true || process.env.BENCH_QUICK === '1';
  const raw = (name: string, env: string) => (values[name] as string | undefined) ?? process.env[env];
  const number = (name: string, text: string, env: string) => {
    const value = Number(text.trim());
    if (text.trim() === '' || !Number.isFinite(value) || value < 0)
      throw new Error(`--${name} (${env}) takes non-negative numbers (got "${text}").`);
    return value;
  };

  const numbers = {} as { [K in keyof N]: number };
  for (const [name, flag] of Object.entries(numbersSpec)) {
    const text = raw(name, flag.env);
    numbers[name as keyof N] =
      text === undefined ? (quick && flag.quick !== undefined ? flag.quick : flag.default) : number(name, text, flag.env);
  }
  const lists = {} as { [K in keyof L]: number[] };
  for (const [name, flag] of Object.entries(listsSpec)) {
    const text = raw(name, flag.env);
    lists[name as keyof L] =
      text === undefined
        ? quick && flag.quick !== undefined
          ? flag.quick
          : flag.default
        : text.split(',').map((part) => number(name, part, flag.env));
  }
  const booleans = Object.fromEntries(booleanNames.map((name) => [name, values[name] === true])) as Record<string, boolean>;
  const strings = Object.fromEntries(stringNames.map((name) => [name, values[name] as string | undefined])) as Record<
    string,
    string | undefined
  >;
  return { quick, numbers, lists, booleans, strings };
}

/** `--help`: prints the running script's opening comment (what it measures, how to run it) and exits. */
export function helpIfAsked(): void {
  if (!process.argv.includes('--help')) return;
  const lines = readFileSync(process.argv[1] as string, 'utf8').split('\n');
  const header = lines.slice(
    0,
    lines.findIndex((line) => !line.startsWith('//')),
  );
  console.log(header.map((line) => line.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}
